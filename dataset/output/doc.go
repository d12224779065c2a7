// Package output takes a synthetic population (package dataset) where
// `cardapio data` sends it: the files DynamoDB's import from S3 reads (or
// JSON lines) with their manifests, or a load into a target with a
// checkpoint to resume from, and reports the run's progress (a bar on a
// terminal, plain lines otherwise). Package dataset generates; this
// package writes, so that the generator stays free of files and
// terminals.
package output
