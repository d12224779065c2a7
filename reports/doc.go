// Package reports renders what cardapio's commands find: check's review
// and static capacity, cost's bill, and the budget gate's verdicts, as
// text for people, JSON for programs, and the files CI systems read
// (JUnit XML, Markdown for pull-request comments and step summaries,
// SARIF for code scanning).
//
// Renderers take results that libraries computed and never compute a
// figure themselves: every number they print comes from catalog,
// capacity/estimate, cost or budget. The HTML report's results are
// gathered by reports/collect and rendered by reports/html. Commands stay thin because the layout
// lives here, and one result can be written in several formats from one
// run.
package reports
