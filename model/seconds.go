package model

import "fmt"

// FormatSeconds renders a duration in seconds for people: one decimal and,
// past a minute, minutes and seconds too ("779.8 s (12m59s)"). Plans' notes
// and the command line's tables use it, so that both read alike.
func FormatSeconds(s float64) string {
	if s < 60 {
		return fmt.Sprintf("%.1f s", s)
	}
	m := int(s) / 60
	return fmt.Sprintf("%.1f s (%dm%02ds)", s, m, int(s)-60*m)
}
