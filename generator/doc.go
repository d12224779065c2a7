// Package generator turns a resolved model into the Go code a team would
// otherwise write by hand: key builders that zero-pad and refuse a value
// holding the separator, parsers that read a key back and name the
// entity of a foreign one, entity types with a constructor that fills
// computed attributes and checks the model's value domains, a function
// per access pattern (GetItem or Query with the right key condition,
// multi-attribute index keys natively or in their synthetic form, page
// iterators, scatter-gather over every shard merged in the index's
// order), a function per business operation sending exactly the
// requests the model declares and returning typed errors named from the
// model's failure meanings, and the tables as CreateTableInput values.
// Beside the Go package it writes a CloudFormation template, the tenant
// IAM policy and a NoSQL Workbench data model; ImportWorkbench reads one
// back as a starting model.
//
// The design follows sqlc: Generate reads the resolved *catalog.Model
// (never YAML) and returns the files as a map; Write and Stale are
// separate steps, which is what lets CI fail on stale committed code.
// Output goes through go/format, from embedded text/template templates
// and code built from the model; the generated code imports only the
// standard library and aws-sdk-go-v2 and reaches DynamoDB through a
// narrow interface that *dynamodb.Client satisfies.
package generator
