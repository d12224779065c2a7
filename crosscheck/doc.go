// Package crosscheck compares the embedded engine with independent
// DynamoDB implementations, dynalite and moto, through aws-sdk-go-v2.
//
// The package is made of tests: each case is a sequence of operations that
// runs on an independent implementation and on the engine, with table
// names unique to each side, and every step must produce the same items,
// the same pages (LastEvaluatedKey, Count, ScannedCount) and the same
// exception names, and the implementation the outcome the case expects of
// DynamoDB. The one library file holds the SDK client setup and the
// normalisation that makes two outputs comparable: request ids,
// timestamps and ConsumedCapacity (which neither implementation computes
// as DynamoDB does; moto reports a constant per request kind) are
// dropped, set members and unordered results are sorted, and account ids
// in ARNs are masked.
//
// Every case runs on each implementation that is running; the cases with
// transactions (TransactWriteItems, TransactGetItems) only on moto, as
// dynalite has none. TTL and multi-attribute index keys are outside both
// and are checked elsewhere. Where an implementation is known to depart
// from DynamoDB's documented behaviour the step is listed (knownGaps for
// the engine against dynalite, motoDiffers for moto) and its difference is
// logged, not failed; CROSSCHECK_DUMP=1 prints every step an
// implementation answers otherwise, to review such a list.
//
// Environment: DYNALITE_ENDPOINT names the running dynalite, MOTO_ENDPOINT
// the running moto (without it a moto_server on PATH is started for the
// test binary; .ci/run starts both). Without either the tests skip; under
// CI=true dynalite is required. The engine is started in process on a
// loopback port, unless ENGINE_ENDPOINT names another endpoint (for
// example a second dynalite, to check the runner itself).
package crosscheck
