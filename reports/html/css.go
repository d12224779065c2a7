package html

// css is the page's only style: large type and high contrast for a
// projector, tables that scroll rather than overflow, and print rules
// (no navigation, sections kept whole, charts at the page's width).
const css = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1260px; padding: 16px 24px 48px; font: 18px/1.45 system-ui, "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #111; background: #fff; }
h1 { font-size: 34px; margin: 8px 0 4px; }
h1 .sub { font-weight: normal; color: #333; font-size: 24px; }
h2 { font-size: 27px; margin: 40px 0 8px; padding-top: 8px; border-top: 3px solid #111; }
p, li { max-width: 75em; }
code { font: 16px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; background: #f1f1f1; padding: 1px 4px; word-break: break-all; }
.meta, .desc { color: #222; margin: 4px 0; }
nav ol { display: flex; flex-wrap: wrap; gap: 6px 20px; list-style: none; padding: 0; margin: 12px 0; font-size: 18px; }
nav a { color: #0b3d91; font-weight: 600; }
a:focus { outline: 3px solid #b45f06; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; list-style: none; padding: 0; margin: 12px 0; }
.card { border: 3px solid #111; border-radius: 6px; padding: 10px 14px; min-width: 260px; flex: 1; }
.card.ok { border-color: #1e5f1e; }
.card.bad { border-color: #a30000; border-style: double; border-width: 6px; }
.card .mark { display: inline-block; font-weight: 800; padding: 0 6px; border: 2px solid currentColor; }
.card.ok .mark { color: #1e5f1e; }
.card.bad .mark { color: #a30000; }
.missing { border: 3px dashed #7f6000; padding: 4px 16px 8px; margin: 16px 0; background: #fffbea; }
.missing h2 { border: 0; margin-top: 8px; }
.absent { font-style: italic; }
figure { margin: 16px 0; }
figcaption { font-size: 16px; color: #222; margin-top: 4px; }
svg.chart { display: block; height: auto; background: #fff; }
svg.chart text { fill: #111; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 12px 0 20px; font-size: 16px; }
caption { text-align: left; font-weight: 700; font-size: 18px; padding: 4px 0; }
th, td { border: 1px solid #666; padding: 4px 8px; text-align: left; vertical-align: top; }
thead th { background: #e8e8e8; }
tbody th { font-weight: 600; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
footer { margin-top: 40px; font-size: 16px; color: #222; border-top: 1px solid #666; padding-top: 8px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  nav { display: none; }
  h2 { break-after: avoid; }
  figure, table, .card { break-inside: avoid; }
  .scroll { overflow: visible; }
  a { color: #000; text-decoration: none; }
  table { font-size: 9pt; }
}
`
