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
// forms of colour blindness. Past its eight colours a series also gets a fill
// pattern, so that up to 64 jobs each have their own look; every bar is
// labelled with its job, or the job's key from the legend, where the label
// fits. Policies are named beside their bars and drawn with their own colour
// and dash pattern in the CDFs. Colour is never the only cue.
//
// Layout does not depend on the viewer's fonts. SVGs name DejaVu Sans,
// Liberation Sans, Arial and Helvetica; scenes reserve for each character the
// widest of their advances (TextWidth), and gonum's texts have their widths
// pinned with textLength. A test renders the pictures in headless Chromium
// and checks that no two texts overlap.
package chart
