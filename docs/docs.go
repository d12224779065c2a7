// Package docs ships the format reference inside the binary, for the
// commands that hand it to another program (the MCP server's resources):
// the page a reader opens and the one a client reads are the same file.
package docs

import _ "embed"

// ModelFormat is docs/model-format.md, the reference of model.yaml.
//
//go:embed model-format.md
var ModelFormat string
