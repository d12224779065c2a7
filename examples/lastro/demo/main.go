// Command demo uses the generated Lastro package against any
// DynamoDB-compatible endpoint, cardapio serve by default: it creates
// the tables, onboards a debtor, opens a contract with an overdue
// instalment and a Pix charge, applies the settlement webhook twice (the
// second is a duplicate, refused by the model's idempotency record),
// reads the dunning agenda across its 16 shards, and prints what each
// call consumed.
//
//	go run ./cmd/cardapio serve --addr 127.0.0.1:8000 &
//	go run ./examples/lastro/demo -endpoint http://127.0.0.1:8000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/cardapio/cardapio/examples/lastro"
)

func main() {
	endpoint := flag.String("endpoint", "http://127.0.0.1:8000", "DynamoDB endpoint (cardapio serve, DynamoDB Local...)")
	prefix := flag.String("prefix", "demo-", "prefix of the table names")
	flag.Parse()
	db := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(*endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("demo", "demo", ""),
	})
	if err := run(context.Background(), db, lastro.DefaultTables().WithPrefix(*prefix), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func ptr[T any](v T) *T { return &v }

func run(ctx context.Context, db *dynamodb.Client, tables lastro.Tables, out io.Writer) error {
	if err := lastro.CreateTables(ctx, db, tables); err != nil {
		return err
	}
	c := lastro.New(db, tables)

	// The debtor key is an HMAC of the document with the tenant's secret:
	// the CPF never enters a key.
	secret := lastro.TenantSecret{Version: 1, Key: []byte("secret of tenant t042")}
	debtor := lastro.DebtorKeyOf(secret, "123.456.789-09")
	if _, err := c.OnboardDebtor(ctx, lastro.OnboardDebtorInput{
		TenantID: "t042", DebtorKey: debtor, DocumentEnc: []byte("encrypted CPF"),
		SecretVersion: secret.Version, OnboardedAt: "2026-02-14T12:00:00Z",
	}); err != nil {
		return err
	}

	// A contract in collection: NewContract computes its shard.
	contract, err := lastro.NewContract(lastro.Contract{
		TenantID: "t042", DebtorKey: debtor, ContractID: "C-2026-004512", ProductCode: "CREDIARIO_12X",
		Currency: lastro.CurrencyBrl, ChargesPolicy: "CP#v3", Status: lastro.StatusInCollection,
		StatusReason: ptr(lastro.StatusReasonOldestInstallmentOverdue), OldestOverdueDueDate: ptr("2026-08-10"),
		Bucket: ptr(lastro.BucketD031_060), OutstandingCents: 292740, NextActionDate: ptr("2026-09-24"),
		NextAction: ptr(lastro.NextActionSmsD45), Version: 22, UpdatedAt: "2026-09-23T03:12:44Z",
	})
	if err != nil {
		return err
	}
	instalment, err := lastro.NewInstallment(lastro.Installment{
		TenantID: "t042", DebtorKey: debtor, ContractID: contract.ContractID, Seq: 7,
		OriginalDueDate: "2026-08-10", DueDate: "2026-08-10", PrincipalCents: 41230, InterestCents: 7560,
		Status: lastro.StatusOverdue, Version: 9,
	})
	if err != nil {
		return err
	}
	for _, it := range []lastro.Item{contract, instalment} {
		item, err := it.MarshalItem()
		if err != nil {
			return err
		}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tables.Collections), Item: item}); err != nil {
			return err
		}
	}
	key, _ := lastro.ContractKey("t042", debtor, contract.ContractID)
	fmt.Fprintf(out, "contract %s in shard %d, key %s / %s\n", contract.ContractID, contract.Shard, key.PK, key.SK)

	charge, err := c.CreateCharge(ctx, lastro.CreateChargeInput{
		TenantID: "t042", DebtorKey: debtor, ContractID: contract.ContractID, Seq: 7, ChargeRef: "E2E7Q9X4K2M8P0R5T3V1W6Y8Z",
		AmountCents: 48790, ExpiresAt: 1798502400, EventAt: "2026-09-23T18:40:12.512Z", EventID: "e7Qk2xZa", Actor: "svc-charges",
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "CreateCharge: %.0f WRU\n", charge.Capacity.WriteUnits)

	// The Pix webhook: the payment leaves the contract delinquent.
	payment := lastro.ApplySettlementInput{
		TenantID: "t042", ChargeRef: "E2E7Q9X4K2M8P0R5T3V1W6Y8Z", SettlementID: "E00038166202609240007s1a2b3c4d5",
		AmountCents: 48790, ReceivedAt: "2026-09-24T03:07:01Z", NewInstallmentStatus: lastro.StatusPaid,
		ContractVersion: 22, NewBalance: 243950, NewOldest: "2026-09-10",
		NewBucket: lastro.BucketD001_030, NewNextActionDate: "2026-09-25", NewNextAction: lastro.NextActionSmsD15,
		UpdatedAt: "2026-09-24T00:07:03Z", KeepUntil: 1824779221, Variant: lastro.ApplySettlementPartial,
	}
	res, err := c.ApplySettlement(ctx, payment)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "ApplySettlement: %.0f WRU, %.1f RRU (budget of the partial variant: 10 WRU)\n", res.Capacity.WriteUnits, res.Capacity.ReadUnits)

	// The provider resends the webhook: nothing is credited twice.
	_, err = c.ApplySettlement(ctx, payment)
	var f *lastro.Failure
	switch {
	case errors.Is(err, lastro.ErrAlreadyApplied) && errors.As(err, &f):
		fmt.Fprintf(out, "duplicate webhook: %s (outcome: %s)\n", f.Meaning, f.Outcome)
	case err != nil:
		return err
	default:
		return errors.New("a duplicate settlement went through")
	}

	// The dunning agenda of 2026-09-25: one query per shard, merged.
	agenda, used, err := lastro.Collect(c.AP03(ctx, "t042", "2026-09-25", "SMS_"))
	if err != nil {
		return err
	}
	for _, e := range agenda {
		fmt.Fprintf(out, "agenda: %s %s, %d cents outstanding\n", e.ContractID, e.NextAction, *e.OutstandingCents)
	}
	fmt.Fprintf(out, "AP03 read %d shards for %.1f RRU\n", 16, used.ReadUnits)
	return nil
}
