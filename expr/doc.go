// Package expr parses and evaluates DynamoDB's expression languages:
// condition and filter expressions, key conditions (including indexes
// keyed on several attributes), update expressions and projection
// expressions, over attr values.
//
// A request's expressions share one set of ExpressionAttributeNames and
// ExpressionAttributeValues, and DynamoDB rejects placeholders that no
// expression uses, so every expression of a request is parsed through one
// Scope, whose Check reports the unused ones. Parsing happens once per
// request; the results (Condition, KeyCondition, Update, Projection) are
// immutable trees that evaluate against attr.Item without allocating in
// the common cases, so a conditional write costs little more than a plain
// one.
//
// Every error is an *Error whose message carries DynamoDB's wording,
// prefixed like DynamoDB's ("Invalid ConditionExpression: ..."), so an
// engine returns it as a ValidationException verbatim.
package expr
