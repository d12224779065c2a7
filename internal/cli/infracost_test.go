package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/reports"
)

// infracostKeys are the usage keys Infracost's aws_dynamodb_table reads
// (its UsageSchema), all whole numbers.
var infracostKeys = map[string]bool{
	"monthly_write_request_units": true, "monthly_read_request_units": true, "storage_gb": true,
	"pitr_backup_storage_gb": true, "on_demand_backup_storage_gb": true, "monthly_data_restored_gb": true,
	"monthly_streams_read_request_units": true,
}

// TestInfracostUsage writes the usage file of both examples and holds
// it to cost --format json: one resource a table, its units adding up
// to the month's, its storage and PITR the bill's tables', rounded up.
func TestInfracostUsage(t *testing.T) {
	for _, model := range []string{"../../model.yaml", "../../examples/orders/model.yaml"} {
		file := filepath.Join(t.TempDir(), "infracost-usage.yml")
		r := runCLI([]string{"cost", model, "--format", "json", "--infracost-usage", file}, nil)
		require.Equal(t, 0, r.code, r.stderr)
		var bill struct {
			WRU, RRU float64
			Tables   []struct {
				Table   string
				GB      float64
				DataGB  float64
				PITRUSD float64
			}
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &bill))
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		var usage struct {
			Version       any                       `yaml:"version"`
			ResourceUsage map[string]map[string]any `yaml:"resource_usage"`
			Defaults      map[string]map[string]any `yaml:"resource_type_default_usage"`
			Rest          map[string]any            `yaml:",inline"`
		}
		require.NoError(t, yaml.Unmarshal(data, &usage), string(data))
		assert.Equal(t, 0.1, usage.Version)
		assert.Empty(t, usage.Rest)
		require.Len(t, usage.ResourceUsage, len(bill.Tables))
		var wru, rru float64
		for _, tb := range bill.Tables {
			u, ok := usage.ResourceUsage[reports.InfracostAddress(tb.Table)]
			require.True(t, ok, tb.Table)
			for k, v := range u {
				assert.True(t, infracostKeys[k], "%s: %s is not a key Infracost reads", tb.Table, k)
				_, whole := v.(int)
				assert.True(t, whole, "%s.%s: %v is not a whole number", tb.Table, k, v)
			}
			wru += float64(u["monthly_write_request_units"].(int))
			rru += float64(u["monthly_read_request_units"].(int))
			assert.Equal(t, int(math.Ceil(tb.GB)), u["storage_gb"], tb.Table)
			if tb.PITRUSD > 0 {
				assert.Equal(t, int(math.Ceil(tb.DataGB)), u["pitr_backup_storage_gb"], tb.Table)
			} else {
				assert.NotContains(t, u, "pitr_backup_storage_gb", tb.Table)
			}
		}
		// Each table's figures are rounded up: the sums are the month's,
		// to less than one unit a table.
		n := float64(len(bill.Tables))
		assert.InDelta(t, bill.WRU+n/2, wru, n/2, model)
		assert.InDelta(t, bill.RRU+n/2, rru, n/2, model)
		assert.Greater(t, wru, 0.0)
	}

	r := runCLI([]string{"cost", "--compare", "../../model.yaml", "../../examples/orders/model.yaml", "--infracost-usage", filepath.Join(t.TempDir(), "x.yml")}, nil)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--infracost-usage writes one model's usage")
}

func TestInfracostAddress(t *testing.T) {
	for table, want := range map[string]string{
		"orders":              "aws_dynamodb_table.orders",
		"collections-history": "aws_dynamodb_table.collections-history",
		"my.table":            "aws_dynamodb_table.my_table",
		"2024_events":         "aws_dynamodb_table._2024_events",
	} {
		assert.Equal(t, want, reports.InfracostAddress(table))
		assert.False(t, strings.ContainsAny(strings.TrimPrefix(want, "aws_dynamodb_table."), "."), want)
	}
}
