package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFollowUpSubjectsChecked: a follow-up may draw subjects besides its
// cause, but not more items of the entity it follows each item of; the
// refusal is positioned at the subjects' entity.
func TestFollowUpSubjectsChecked(t *testing.T) {
	m, err := Load("../model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const text = `scenarios:
  agenda:
    description: the agenda's claims, each paired with a subject
    at: "08:00"
    load:
      - operation: DunningAgenda
        count: 10
        window: 1m
        params:
          tenantId: {spread: tenantId}
          nextActionDate: {clock: true}
      - operation: ClaimContact
        follows: {load: DunningAgenda, each: item}
        subjects: {entity: ENTITY, pick: each}
        params:
          localDate: {clock: true}
          ttl: {date: {from: localDate, days: 8}}
          channel: SMS
          template: {copy: CONTRACT.nextAction}
`
	for entity, want := range map[string]string{
		"CONTRACT": "s.yaml:14:28: scenarios.agenda.load[1].subjects.entity: the load follows each CONTRACT its cause reads: those are its subjects already",
		"PROFILE":  "",
	} {
		path := filepath.Join(t.TempDir(), "s.yaml")
		if err := os.WriteFile(path, []byte(strings.Replace(text, "ENTITY", entity, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadScenarioFile(m, path)
		got := ""
		if err != nil {
			got = strings.SplitN(err.Error(), "\n", 2)[0]
		}
		if !strings.HasSuffix(got, want) || (want == "") != (got == "") {
			t.Errorf("subjects %s: got %q, want %q", entity, got, want)
		}
	}
}
