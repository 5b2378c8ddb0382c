package model

import (
	"fmt"
	"math"
	"testing"
)

func TestFormatSeconds(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0.0 s"},
		{59.94, "59.9 s"},
		{60, "60.0 s (1m00s)"},
		{779.8, "779.8 s (12m59s)"},      // 12 × 60 + 59.8
		{3599.9, "3599.9 s (59m59s)"},    // the last minute before an hour
		{3600, "3600.0 s (1h00m00s)"},    // an hour is 1h, not 60m
		{4176.5, "4176.5 s (1h09m36s)"},  // 3600 + 9 × 60 + 36.5
		{41000, "41000.0 s (11h23m20s)"}, // 11 × 3600 + 23 × 60 + 20, not 683m20s
		{96000, "96000.0 s (26h40m00s)"}, // no days: 26 × 3600 + 40 × 60
		{3.6e9 - 1, "3599999999.0 s (999999h59m59s)"},
		{3.6e9, "3600000000.0 s"}, // a million hours: seconds alone
		{1e300, fmt.Sprintf("%.1f s", 1e300)},
		{math.Inf(1), "+Inf s"},
		{math.NaN(), "NaN s"},
		{-90, "-90.0 s"},
	} {
		if got := FormatSeconds(c.s); got != c.want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}
