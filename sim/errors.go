package sim

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrInvalidSetting is wrapped by every *SettingError, so that
// errors.Is(err, ErrInvalidSetting) tells a caller's bad Settings or
// PolicyOptions from a run that failed.
var ErrInvalidSetting = errors.New("sim: invalid setting")

// SettingError says which field of a run's Settings or PolicyOptions is bad
// and why, so that a caller can point at what set it (the command line names
// the flag). Error gives one line:
//
//	sim: settings: RackFactor must be at least 1 and finite, got 0.5
//	sim: policy options: Spending["bob"] must be positive and finite, got 0
type SettingError struct {
	// Input is the struct the field belongs to: "settings" (Settings) or
	// "policy options" (PolicyOptions).
	Input string
	// Field is the field's Go name, e.g. "RackFactor".
	Field string
	// Key is the map key of a bad entry of a map field (Spending,
	// HybSLevels, HybSWaited), else "".
	Key string
	// Value is the value refused, as given (before any default).
	Value any
	// Rule is what the value must be, e.g. "must be at least 1 and finite".
	Rule string
}

func (e *SettingError) Error() string {
	field := e.Field
	if e.Key != "" {
		field += "[" + strconv.Quote(e.Key) + "]"
	}
	return fmt.Sprintf("sim: %s: %s %s, got %v", e.Input, field, e.Rule, e.Value)
}

// Unwrap returns ErrInvalidSetting.
func (e *SettingError) Unwrap() error { return ErrInvalidSetting }

// settingError is a *SettingError about a field of Settings.
func settingError(field string, v any, rule string) error {
	return &SettingError{Input: "settings", Field: field, Value: v, Rule: rule}
}

// optionError is a *SettingError about a field, or a map entry (key not
// ""), of PolicyOptions.
func optionError(field, key string, v any, rule string) error {
	return &SettingError{Input: "policy options", Field: field, Key: key, Value: v, Rule: rule}
}
