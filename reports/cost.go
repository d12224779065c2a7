package reports

import (
	"io"

	"github.com/cardapio/cardapio/capacity/estimate"
)

// Cost writes cost's report: one bill, or two side by side with their
// ratio, as text or as one JSON document ({"a": ..., "b": ...} for two).
func Cost(w io.Writer, format string, bills ...*estimate.Bill) error {
	switch {
	case format == "json" && len(bills) == 2:
		return JSON(w, map[string]any{"a": bills[0], "b": bills[1]})
	case format == "json":
		return JSON(w, bills[0])
	case len(bills) == 2:
		estimate.WriteCompare(w, bills[0], bills[1])
	default:
		bills[0].WriteText(w)
	}
	return nil
}
