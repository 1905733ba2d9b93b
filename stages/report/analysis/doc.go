// Package analysis is the report's numbers as values: the cells of a run
// grouped by batch, variant and workload point into repeat sets, the
// decisions between repeat sets (the comparisons table's rows, else
// decide.Compare), win counts, peaks, radar scores, the steady state of
// each cell, a study's answers and the join of two runs for compare.
//
// It reads nothing and writes nothing, and it puts no number into words:
// package report reads the tables into a Tables, renders these values as
// Markdown, HTML and SVG, and writes the files. internal/archtest keeps
// its imports to the pure standard library, datasets, pipeline and stats.
package analysis
