package crosscheck

// knownGaps lists the steps where the engine is known to differ from
// dynalite (and from DynamoDB), keyed by test name and step number. Such a
// step still runs on both sides and its difference is logged as a KNOWN
// ENGINE GAP instead of failing the test; a listed step that agrees again
// logs that the entry should go. Every other step of the same case is still
// compared strictly. Keep this list short and remove entries as the engine
// catches up: each one is a difference from DynamoDB.
var knownGaps = map[string]string{}
