// Package arch holds no code: its tests keep the layout a design. The data
// flows one way, profile → model → optimize/pso → plan → apply | simulate |
// chart, and a package never imports one to its right; the command line stays
// a thin layer over the library; no function grows past what one screen shows.
package arch
