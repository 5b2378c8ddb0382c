package optimize

import (
	"errors"
	"fmt"
)

// ErrInvalidSetting is wrapped by every *SettingError, so that
// errors.Is(err, ErrInvalidSetting) tells bad Settings from a failed solve.
var ErrInvalidSetting = errors.New("optimize: invalid setting")

// SettingError says which field of Settings is bad and why, so that a
// caller can point at what set it (the command line names the flag). Error
// gives one line: "optimize: settings: TimeLimit must not be negative, got -1s".
type SettingError struct {
	// Field is the field's Go name, e.g. "TimeLimit".
	Field string
	// Value is the value refused, as given.
	Value any
	// Rule is what the value must be, e.g. "must not be negative".
	Rule string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("optimize: settings: %s %s, got %v", e.Field, e.Rule, e.Value)
}

// Unwrap returns ErrInvalidSetting.
func (e *SettingError) Unwrap() error { return ErrInvalidSetting }
