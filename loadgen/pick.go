package loadgen

import (
	"os"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// PickScenario reads --scenario: a scenario of m by name, or a scenario
// file (FILE, or FILE#NAME to pick one of several), resolved against m.
// It returns the scenario's name and the file (nil for the model's own).
func PickScenario(m *catalog.Model, arg string) (string, *catalog.ScenarioFile, error) {
	if m.Scenario(arg) != nil {
		return arg, nil, nil
	}
	path, name, _ := strings.Cut(arg, "#")
	if _, err := os.Stat(path); err != nil {
		if strings.ContainsAny(arg, "/.") {
			return "", nil, inputErr("--scenario %s: %v", arg, err)
		}
		return arg, nil, nil // Run names the scenarios there are
	}
	f, err := catalog.LoadScenarioFile(m, path)
	if err != nil {
		return "", nil, err
	}
	if name == "" {
		if len(f.Scenarios) != 1 {
			var names []string
			for _, s := range f.Scenarios {
				names = append(names, s.Name)
			}
			return "", nil, inputErr("--scenario %s holds %d scenarios (%s): name one as %s#NAME", path, len(f.Scenarios), strings.Join(names, ", "), path)
		}
		name = f.Scenarios[0].Name
	}
	return name, f, nil
}
