// Package schema ships the JSON Schema of model.yaml inside the binary.
//
// The schema is the contract of the model format: it fixes field names,
// types and enumerations, and documents every field. The catalog package
// validates each model against it before its own semantic checks, and
// maps schema errors back to YAML line and column.
package schema
