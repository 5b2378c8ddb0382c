// Package chart draws packer's results as pictures: plan Gantt charts, model
// fits, simulation comparisons, and the one-file HTML report that gathers them.
//
// Pictures are built as a Scene, a flat list of rectangles, lines and texts in
// pixel coordinates, and rendered twice from that one description: to SVG by
// hand, so that every bar carries what it stands for (class and data-*
// attributes, a <title> tooltip) and tests can check the structure, and to PNG
// through gonum/plot's vgimg canvas. Charts with axes (fits, comparisons) use
// gonum/plot directly.
//
// Colours come from the Okabe–Ito palette, distinguishable with the common
// forms of colour blindness, and every bar is labelled where it fits, so
// colour is never the only way to tell jobs apart.
package chart
