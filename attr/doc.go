// Package attr models DynamoDB attribute values: the ten types of the wire
// protocol (S, N, B, BOOL, NULL, M, L, SS, NS, BS) and the items built from
// them.
//
// Every other package (capacity, engine, catalog samples) speaks in these
// values, so an item decoded once from the wire or from model.yaml can be
// sized, stored, compared and encoded without conversion.
//
// The package holds what every user of values needs and must agree on:
//
//   - numbers (number.go) with DynamoDB's rules: 38 significant digits,
//     magnitudes from 1E-130 to just under 1E126, exact comparison and
//     arithmetic, the canonical text DynamoDB returns, and the digit
//     counts item sizes are computed from; errors carry DynamoDB's wording;
//   - order and equality (compare.go): key order for S, N and B, and deep
//     equality where "1.0" = "1" and sets are unordered;
//   - the DynamoDB JSON wire format (json.go): a hand-written decoder with
//     positioned errors for single values, items and JSONL streams, and a
//     deterministic encoder; Item and Value plug into encoding/json;
//   - conversion to and from aws-sdk-go-v2 attribute values (sdk.go).
//
// Number texts are kept as written (N values and NS members); use
// CanonicalNumber for the text DynamoDB would send back.
package attr
