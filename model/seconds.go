package model

import "fmt"

// FormatSeconds renders a duration in seconds for people: one decimal and,
// past a minute, minutes and seconds too ("779.8 s (12m59s)"), and past an
// hour hours, minutes and seconds ("40999.9 s (11h23m19s)", not 683m19s).
// Plans' notes and the command line's tables use it, so that both read
// alike. Hours do not roll over into days: 100,000 s reads 27h46m40s.
// Beyond a million hours (or for NaN and ±Inf) the seconds stand alone: the
// clock form would only add digits, and int would overflow.
func FormatSeconds(s float64) string {
	if !(s < 3.6e9) || s < 0 {
		return fmt.Sprintf("%.1f s", s)
	}
	whole := int(s)
	switch {
	case s < 60:
		return fmt.Sprintf("%.1f s", s)
	case s < 3600:
		return fmt.Sprintf("%.1f s (%dm%02ds)", s, whole/60, whole%60)
	}
	return fmt.Sprintf("%.1f s (%dh%02dm%02ds)", s, whole/3600, whole/60%60, whole%60)
}
