package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardapio/cardapio/docs"
	"github.com/cardapio/cardapio/schema"
)

// The format's reference, as resources: the page a person reads and the
// JSON Schema every model is validated against, both as shipped in the
// binary.
const (
	FormatURI = "cardapio://docs/model-format.md"
	SchemaURI = "cardapio://schema/model.schema.json"
)

func resources(s *mcp.Server) {
	add := func(uri, name, title, mime, desc, text string) {
		s.AddResource(&mcp.Resource{URI: uri, Name: name, Title: title, MIMEType: mime, Description: desc, Size: int64(len(text))},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
			})
	}
	add(FormatURI, "model-format", "The model format (model.yaml)", "text/markdown",
		"The reference of model.yaml: every section and field, with examples, as docs/model-format.md.", docs.ModelFormat)
	add(SchemaURI, "model-schema", "The JSON Schema of model.yaml", "application/schema+json",
		"The JSON Schema (draft 2020-12) every model is validated against first: field names, types, enumerations, each documented.", string(schema.JSON))
}
