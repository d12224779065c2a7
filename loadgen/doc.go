// Package loadgen replays a model's scenarios against an engine and proves
// on the data what happened: cardapio load.
//
// A run loads the model's synthetic population (dataset) into the
// target, then sends each load of the scenario on its schedule. The
// schedule is an open model: a Pacer turns the load's shape (a rate, a
// count over a window, ramps, steps, bursts, a day's curve) into the due
// time of every arrival as a pure function of its number, and the
// scheduler starts each arrival at that time whatever is still in flight.
// An arrival the runner could not start on time (every in-flight slot
// taken) is started as soon as it can and counted late with how late it
// was, never dropped, so a saturated client is seen as such and
// Options.MaxBehind can fail the run instead of blaming the server.
//
// Each arrival runs a business operation of the catalog through the
// executor, with parameters drawn from the population as the load says
// (its subjects, copies of their attributes, dates relative to the
// scenario's clock, unique ids, values spread like the population's).
// Duplicates (a provider resending a webhook) and follow-ups (one claim
// per agenda entry read) are events of the same schedule; a message whose
// SDK retries run out goes to the dead-letter ledger and is replayed when
// the load says (deadLetter.replayAt). The SDK retry policy is the run's
// and is printed: aws-sdk-go-v2 changed its default for DynamoDB, and a
// run's figures depend on it.
//
// The scenario's clock (Clock) runs Speed times faster than the wall and
// jumps over idle gaps; the embedded engine and its throughput model read
// it, so a compressed run meets partition limits at the same scenario
// instants as a real-time one. Scale multiplies the population, the
// counts and rates, and the throughput model's capacities alike.
//
// What a run measures (latency histograms with HdrHistogram, outcomes,
// throttles by ThrottlingReason, units per table and index, the hottest
// partitions) streams as JSON lines a second and ends in a Summary. At
// the end the model's invariants are checked against the tables (a
// strongly consistent scan) and against the runner's ledger of the
// messages it sent; each violation is reported with its keys. The
// runner does not hold the ledger for the run: a message goes to a spill
// file once nothing more of it can come (its duplicates and replays
// done), and the ledger invariants join it with the tables a bucket at a
// time (ledgerjoin.go). The results file carries that ledger, so that
// Check (cardapio load check) can run the invariants again on tables the
// run kept, or on a population loaded by cardapio data, after anyone
// else wrote to them: the data's invariants always, the ledger's from
// the results file, or reported not checked. Nothing here knows a model's names: scenarios,
// sources and invariants are all declared in the model.
package loadgen
