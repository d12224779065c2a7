// Package crosscheck compares the embedded engine with dynalite, an
// independent DynamoDB emulator, through aws-sdk-go-v2.
//
// The package is made of tests: each case is a sequence of operations that
// runs on both endpoints, with table names unique to each side, and every
// step must produce the same items, the same pages (LastEvaluatedKey, Count,
// ScannedCount) and the same exception names. The one library file holds
// the SDK client setup and the normalisation that makes two outputs
// comparable: request ids, timestamps and ConsumedCapacity (which dynalite
// does not compute as DynamoDB does) are dropped, set members and unordered
// results are sorted, and account ids in ARNs are masked.
//
// The cases cover what dynalite implements; transactions, TTL and
// multi-attribute index keys are outside it and are checked elsewhere.
//
// Environment: DYNALITE_ENDPOINT names the running dynalite; without it the
// tests skip, except under CI=true where they fail. The engine is started in
// process on a loopback port, unless ENGINE_ENDPOINT names another endpoint
// (for example a second dynalite, to check the runner itself).
package crosscheck
