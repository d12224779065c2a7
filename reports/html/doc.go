// Package html renders cardapio's results as one self-contained HTML
// report: the access-pattern map, budgets against the units an engine
// measured, the month's cost by operation and by table and index, one
// model against another, a load run's timelines and a plan's hot
// partitions over time.
//
// It is a package of its own because the report sets what several
// commands find (check, cost, budget, load, plan) in one file people
// open at a design review, on a projector at a workshop, or as a CI
// artifact. It renders a Report it is given and computes nothing:
// reports/collect gathers the results (check, cost and the budget gate
// run as libraries); the load and plan results, and an earlier gate's
// report, are read from the files those runs wrote with the capped,
// positioned readers here. A section without its results says so and
// gives the command that makes them.
//
// The file needs nothing else: the style is inline, the charts are SVG
// laid out by this package (bars, lines, a heatmap, axes with ticks and
// units), and there is no script. The page is written by html/template
// from the embedded templates/ (see templates.go), which escape every
// text a model or a results file gives in the context it lands in; the
// package lays out the views the templates receive. Charts do not rely on colour alone
// (patterns, dashes and direct labels), each has a title and a
// description, and a table beside it holds the same figures.
package html
