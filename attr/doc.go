// Package attr models DynamoDB attribute values: the ten types of the wire
// protocol (S, N, B, BOOL, NULL, M, L, SS, NS, BS) and the items built from
// them.
//
// Every other package (capacity, engine, catalog samples) speaks in these
// values, so an item decoded once from the wire or from model.yaml can be
// sized, stored, compared and encoded without conversion.
package attr
