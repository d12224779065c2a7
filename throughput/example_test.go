package throughput_test

import (
	"fmt"
	"time"

	"github.com/cardapio/cardapio/throughput"
)

// A base-table write that moves its index entry from one date to another
// charges the table once and the index twice, on the old key's partition
// and on the new one's. When the index partition is full, the base write
// is refused with the index's reason (back-pressure).
func ExampleModel_Admit() {
	clk := throughput.NewManualClock(time.Date(2026, 12, 1, 3, 7, 0, 0, time.UTC))
	m, err := throughput.New(throughput.Config{Scale: 0.01, Now: clk.Now})
	if err != nil {
		panic(err)
	}
	err = m.Define("contracts", throughput.ResourceSpec{Mode: throughput.OnDemand},
		map[string]throughput.ResourceSpec{"byNextAction": {}})
	if err != nil {
		panic(err)
	}
	move := func(contract uint64) *throughput.Throttle {
		return m.Admit(throughput.Request{
			Table: "contracts", Hash: contract, Write: 1,
			Indexes: []throughput.IndexCharge{
				{Name: "byNextAction", Hash: 0x1111 << 48, Key: []byte("T1#2026-12-01"), Write: 1},
				{Name: "byNextAction", Hash: 0x9999 << 48, Key: []byte("T1#2026-12-02"), Write: 1},
			},
		})
	}
	// At 1/100 a partition takes 10 write units a second: ten moves pass
	// on the second banked, the eleventh is refused.
	for i := range 11 {
		if th := move(uint64(i) << 60); th != nil { // contracts spread over the table
			fmt.Println(i, th.Exception)
			for _, r := range th.Reasons {
				fmt.Println(r.Reason, r.Resource)
			}
		}
	}
	clk.Advance(time.Second)
	fmt.Println(move(15<<60) == nil)
	// Output:
	// 10 ThrottlingException
	// IndexWriteKeyRangeThroughputExceeded arn:aws:dynamodb:us-east-1:000000000000:table/contracts/index/byNextAction
	// true
}
