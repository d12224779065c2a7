// Package html renders cardapio's results as one self-contained HTML
// report: the access-pattern map, budgets against the units an engine
// measured, the month's cost by operation and by table and index, one
// model against another, a load run's timelines and a plan's hot
// partitions over time.
//
// It is a package of its own because the report gathers what several
// commands find (check, cost, budget, load, plan) into one file people
// open at a design review, on a projector at a workshop, or as a CI
// artifact: check, cost and the budget gate on the embedded engine are
// called here as libraries; load and plan results are read from the
// files those runs wrote, with capped, positioned readers. A section
// without its results says so and gives the command that makes them.
//
// The file needs nothing else: the style is inline, the charts are SVG
// drawn by this package (bars, lines, a heatmap, axes with ticks and
// units), and there is no script. Charts do not rely on colour alone
// (patterns, dashes and direct labels), each has a title and a
// description, and a table beside it holds the same figures.
package html
