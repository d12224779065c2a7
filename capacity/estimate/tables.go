package estimate

import (
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// Table describes a catalog table as the billing rules see it: its keys
// and its secondary indexes, with multi-attribute index keys and
// projections carried over.
func Table(t *catalog.Table) *capacity.Table {
	ct := &capacity.Table{Name: t.Name, PK: t.PartitionKey, SK: t.SortKey}
	for _, x := range t.Indexes {
		ix := capacity.Index{Name: x.Name, PK: x.Partition, SK: x.Sort}
		switch x.Projection.Type {
		case "KEYS_ONLY":
			ix.Projection = capacity.ProjectKeysOnly
		case "INCLUDE":
			ix.Projection = capacity.ProjectInclude
			ix.Include = x.Projection.Attributes
		}
		if x.Local {
			ct.LSIs = append(ct.LSIs, ix)
		} else {
			ct.GSIs = append(ct.GSIs, ix)
		}
	}
	return ct
}

// Class returns the capacity table class of a catalog table.
func Class(t *catalog.Table) capacity.Class {
	if t != nil && t.Class == "STANDARD_INFREQUENT_ACCESS" {
		return capacity.StandardIA
	}
	return capacity.Standard
}
