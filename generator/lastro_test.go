package generator_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/examples/lastro"
	lastrosynthetic "github.com/cardapio/cardapio/generator/testdata/golden/lastro-synthetic"
)

func lastroHarness(t *testing.T) *harness {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	return &harness{
		model: m,
		newClient: func(db any, prefix string) any {
			return lastro.New(db.(lastro.DynamoDB), lastro.DefaultTables().WithPrefix(prefix))
		},
		createTables: func(ctx context.Context, db *dynamodb.Client) error {
			return lastro.CreateTables(ctx, db, lastro.DefaultTables())
		},
		pageSize: func(n int) any { return lastro.PageSize(n) },
		failure:  new(*lastro.Failure),
		keys:     catalog.KeysNative,
	}
}

// lastroSyntheticHarness drives the Lastro package generated with
// --keys synthetic (a golden of the generator's tests).
func lastroSyntheticHarness(t *testing.T) *harness {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	return &harness{
		model: m,
		newClient: func(db any, prefix string) any {
			return lastrosynthetic.New(db.(lastrosynthetic.DynamoDB), lastrosynthetic.DefaultTables().WithPrefix(prefix))
		},
		createTables: func(ctx context.Context, db *dynamodb.Client) error {
			return lastrosynthetic.CreateTables(ctx, db, lastrosynthetic.DefaultTables())
		},
		pageSize: func(n int) any { return lastrosynthetic.PageSize(n) },
		failure:  new(*lastrosynthetic.Failure),
		keys:     catalog.KeysSynthetic,
	}
}

func TestLastroSyntheticPatterns(t *testing.T) { lastroSyntheticHarness(t).checkPatterns(t, 60) }

func TestLastroSyntheticOperations(t *testing.T) { lastroSyntheticHarness(t).checkOperations(t) }

func TestLastroSyntheticAgreesWithExecutor(t *testing.T) {
	lastroSyntheticHarness(t).checkAgreement(t, catalog.KeysSynthetic)
}

func TestLastroPatterns(t *testing.T) { lastroHarness(t).checkPatterns(t, 60) }

func TestLastroOperations(t *testing.T) { lastroHarness(t).checkOperations(t) }

// openLastro returns a client of the Lastro package on a fresh embedded
// engine with the model's tables.
func openLastro(t *testing.T) (*lastro.Client, *dynamodb.Client) {
	t.Helper()
	tg, err := endpoint.Open(context.Background(), endpoint.Options{})
	require.NoError(t, err)
	require.NoError(t, lastro.CreateTables(context.Background(), tg.Client, lastro.DefaultTables()))
	return lastro.New(tg.Client, lastro.DefaultTables()), tg.Client
}

func put(t *testing.T, db *dynamodb.Client, items ...lastro.Item) {
	t.Helper()
	for _, it := range items {
		m, err := it.MarshalItem()
		require.NoError(t, err)
		_, err = db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("collections"), Item: m})
		require.NoError(t, err)
	}
}

func ptr[T any](v T) *T { return &v }

// settlement is the article's payment of instalment 7, leaving the
// contract delinquent.
func settlement() lastro.ApplySettlementInput {
	return lastro.ApplySettlementInput{
		TenantID: "t042", ChargeRef: "E2E7Q9X4K2M8P0R5T3V1W6Y8Z", SettlementID: "E00038166202609240007s1a2b3c4d5",
		AmountCents: 48790, ReceivedAt: "2026-09-24T03:07:01Z", NewInstallmentStatus: lastro.StatusPaid,
		ContractVersion: 22, NewBalance: 243950, NewOldest: "2026-09-10",
		NewBucket: lastro.BucketD001_030, NewNextActionDate: "2026-09-25", NewNextAction: lastro.NextActionSmsD15,
		UpdatedAt: "2026-09-24T00:07:03Z", KeepUntil: 1824779221, Variant: lastro.ApplySettlementPartial,
	}
}

// seedSettlement writes the charge, the instalment and the contract the
// article's settlement applies to.
func seedSettlement(t *testing.T, db *dynamodb.Client) {
	t.Helper()
	contract, err := lastro.NewContract(lastro.Contract{
		TenantID: "t042", DebtorKey: "9f2c1a7e4b0d3e61", ContractID: "C-2026-004512", ProductCode: "CREDIARIO_12X",
		Currency: lastro.CurrencyBrl, ChargesPolicy: "CP#v3", Status: lastro.StatusInCollection,
		StatusReason: ptr(lastro.StatusReasonOldestInstallmentOverdue), OldestOverdueDueDate: ptr("2026-08-10"),
		Bucket: ptr(lastro.BucketD031_060), OutstandingCents: 292740, NextActionDate: ptr("2026-09-24"),
		NextAction: ptr(lastro.NextActionSmsD45), Version: 22, UpdatedAt: "2026-09-23T03:12:44Z",
	})
	require.NoError(t, err)
	require.Equal(t, int64(10), contract.Shard, "NewContract computes the shard as the catalog does")
	put(t, db,
		lastro.Charge{TenantID: "t042", ChargeRef: "E2E7Q9X4K2M8P0R5T3V1W6Y8Z", DebtorKey: "9f2c1a7e4b0d3e61",
			ContractID: "C-2026-004512", Seq: 7, AmountCents: 48790, ExpiresAt: 1798502400},
		lastro.Installment{TenantID: "t042", DebtorKey: "9f2c1a7e4b0d3e61", ContractID: "C-2026-004512", Seq: 7,
			OriginalDueDate: "2026-08-10", DueDate: "2026-08-10", PrincipalCents: 41230, InterestCents: 7560,
			Status: lastro.StatusOverdue, Version: 9},
		contract)
}

func TestLastroDuplicateSettlement(t *testing.T) {
	c, db := openLastro(t)
	seedSettlement(t, db)
	m := lastroHarness(t).model
	res, err := c.ApplySettlement(context.Background(), settlement())
	require.NoError(t, err)
	assert.Equal(t, "C-2026-004512", res.ContractID)
	assert.Equal(t, int64(7), res.Seq)
	assert.Positive(t, res.Capacity.WriteUnits)
	state := snapshot(t, db, m)

	// The provider resends the webhook: the settlement already exists, the
	// whole transaction is cancelled, nothing is credited twice.
	_, err = c.ApplySettlement(context.Background(), settlement())
	require.ErrorIs(t, err, lastro.ErrAlreadyApplied)
	var f *lastro.Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "settlement", f.Step)
	assert.Equal(t, "succeed", f.Outcome)
	assert.Contains(t, f.Meaning, "duplicate webhook")
	var tce *types.TransactionCanceledException
	assert.ErrorAs(t, err, &tce, "the DynamoDB error stays reachable")
	assert.NotErrorIs(t, err, lastro.ErrVersionConflict, "the first failed action names the failure")
	assert.Equal(t, state, snapshot(t, db, m), "a duplicate settlement changed the table")

	insts, _, err := lastro.Collect(c.AP02(context.Background(), "t042", "9f2c1a7e4b0d3e61", "C-2026-004512"))
	require.NoError(t, err)
	require.Len(t, insts, 1)
	assert.Equal(t, int64(48790), insts[0].PaidCents, "credited once")
	assert.Equal(t, int64(10), insts[0].Version)
}

// Fifty gateways claim a contact for the same debtor on the same day at
// once: exactly the policy's daily maximum succeed, every other is told
// not to contact, and the counter holds the maximum.
func TestLastroContactLimitUnderContention(t *testing.T) {
	c, _ := openLastro(t)
	const claims, maxDaily = 50, 3
	var wg sync.WaitGroup
	var ok, refused, other atomic.Int32
	for i := range claims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.ClaimContact(context.Background(), lastro.ClaimContactInput{
				TenantID: "t042", DebtorKey: "9f2c1a7e4b0d3e61", LocalDate: "2026-09-20", TTL: 1790564400,
				MaxDaily: maxDaily, ContactAt: fmt.Sprintf("2026-09-20T09:00:%02d-03:00", i), ContractID: "C-2026-004512",
				Channel: lastro.ChannelSms, Template: "SMS_D45", Result: lastro.ResultSent,
			})
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, lastro.ErrContactLimitReached):
				refused.Add(1)
			default:
				other.Add(1)
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(maxDaily), ok.Load())
	assert.Equal(t, int32(claims-maxDaily), refused.Load())
	assert.Zero(t, other.Load())
	items, _, err := lastro.Collect(c.AP15(context.Background(), "t042", "9f2c1a7e4b0d3e61", "2026-09-20"))
	require.NoError(t, err)
	assert.Len(t, items, maxDaily, "one CONTACT per successful claim")
	day, err := c.ContactsOfDay(context.Background(), lastro.ContactsOfDayInput{TenantID: "t042", DebtorKey: "9f2c1a7e4b0d3e61", LocalDate: "2026-09-20"})
	require.NoError(t, err)
	require.NotNil(t, day.Counter)
	assert.Equal(t, int64(maxDaily), day.Counter.Attempts)
	assert.Len(t, day.Contacts, maxDaily)
}

// The 00h07 race: the scheduler read version 22, a settlement moved the
// contract to 23 first; the reschedule is refused, not applied.
func TestLastroVersionConflict(t *testing.T) {
	c, db := openLastro(t)
	seedSettlement(t, db)
	_, err := c.ApplySettlement(context.Background(), settlement())
	require.NoError(t, err)
	_, err = c.RescheduleNextAction(context.Background(), lastro.RescheduleNextActionInput{
		TenantID: "t042", DebtorKey: "9f2c1a7e4b0d3e61", ContractID: "C-2026-004512",
		NextActionDate: "2026-09-25", NextAction: lastro.NextActionAgreementOfferD60, Expected: 22, Now: "2026-09-25T00:07:00Z",
	})
	require.ErrorIs(t, err, lastro.ErrVersionConflict)
	var f *lastro.Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "retry", f.Outcome)
	var ccf *types.ConditionalCheckFailedException
	assert.ErrorAs(t, err, &ccf)
	// Re-read and retry with the current version: it goes through.
	_, err = c.RescheduleNextAction(context.Background(), lastro.RescheduleNextActionInput{
		TenantID: "t042", DebtorKey: "9f2c1a7e4b0d3e61", ContractID: "C-2026-004512",
		NextActionDate: "2026-09-26", NextAction: lastro.NextActionSmsD15, Expected: 23, Now: "2026-09-25T00:07:00Z",
	})
	require.NoError(t, err)
	// The instalment's other charge paid as well (another settlement, the
	// contract's current version): the instalment is already paid, which
	// the transaction's cancellation reasons name, and nothing is credited.
	in := settlement()
	in.SettlementID = "E00038166202609240007zzzzzzzzz"
	in.ContractVersion = 24
	_, err = c.ApplySettlement(context.Background(), in)
	require.ErrorIs(t, err, lastro.ErrAlreadyPaid)
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "installment", f.Step)
	assert.Equal(t, "stop", f.Outcome)
	require.Len(t, f.Reasons, 3)
}

// A key built for one tenant never reads another's items, and a value
// that would smuggle a separator into the key is refused.
func TestLastroTenantIsolation(t *testing.T) {
	c, db := openLastro(t)
	for _, tenant := range []string{"t042", "t043"} {
		put(t, db, lastro.Profile{TenantID: tenant, DebtorKey: "9f2c1a7e4b0d3e61", DocumentEnc: []byte{1, 2, 3}, SecretVersion: 1, OnboardedAt: "2026-02-14T12:00:00Z"},
			lastro.Limit{TenantID: tenant, DebtorKey: "9f2c1a7e4b0d3e61", LocalDate: "2026-09-20", Attempts: 1, ExpiresAt: 1790564400})
	}
	items, _, err := lastro.Collect(c.AP01(context.Background(), "t042", "9f2c1a7e4b0d3e61"))
	require.NoError(t, err)
	require.Len(t, items, 2)
	for _, it := range items {
		switch x := it.(type) {
		case lastro.Profile:
			assert.Equal(t, "t042", x.TenantID)
		case lastro.Limit:
			assert.Equal(t, "t042", x.TenantID)
		default:
			t.Errorf("unexpected %T", it)
		}
	}
	debtors, _, err := lastro.Collect(c.AP14(context.Background(), "t043"))
	require.NoError(t, err)
	require.Len(t, debtors, 1)
	assert.Equal(t, "t043", debtors[0].TenantID)
	// "t042#D#x" as a tenant would read inside another key space.
	_, _, err = lastro.Collect(c.AP01(context.Background(), "t042#D#9f2c1a7e4b0d3e61", "x"))
	require.ErrorContains(t, err, "contains the key separator")
	_, err = lastro.ProfileKey("", "9f2c1a7e4b0d3e61")
	require.ErrorContains(t, err, "tenantId is empty")
}

func TestLastroAgreesWithExecutor(t *testing.T) {
	lastroHarness(t).checkAgreement(t, catalog.KeysNative)
}

// The constructor fills the computed shard as the catalog computes it and
// refuses, all at once, what the model's domains and presence rules
// forbid.
func TestLastroConstructorDomains(t *testing.T) {
	for _, id := range []string{"C-2026-004512", "C-2026-000001", "C-1999-999999", "x"} {
		c, err := lastro.NewContract(lastro.Contract{TenantID: "t042", DebtorKey: "9f2c1a7e4b0d3e61", ContractID: id,
			Currency: lastro.CurrencyBrl, Status: lastro.StatusActive, Version: 1, UpdatedAt: "2026-09-23T03:12:44Z"})
		if id == "x" {
			require.Error(t, err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, int64(catalog.HashMod(id, 16)), c.Shard, id)
		assert.Equal(t, int64(catalog.HashMod(id, 16)), lastro.ShardOf(id))
	}
	_, err := lastro.NewContract(lastro.Contract{
		TenantID: "t042", DebtorKey: "NOT-HEX", ContractID: "C-2026-004512", Currency: "USD", Status: lastro.StatusActive,
		OutstandingCents: -5, Bucket: ptr(lastro.BucketD031_060), Version: 0, UpdatedAt: "yesterday",
	})
	require.Error(t, err)
	for _, want := range []string{
		`debtorKey "NOT-HEX" does not match its pattern`,
		`currency "USD" is not one of its values`,
		"outstandingCents -5 is below its minimum 0",
		"version 0 is below its minimum 1",
		`updatedAt "yesterday" is not an RFC 3339 instant`,
		"bucket is carried only while status is IN_COLLECTION",
	} {
		assert.ErrorContains(t, err, want)
	}
	// Keys: zero padding, overflow, a foreign entity's key.
	k, err := lastro.InstallmentKey("t042", "9f2c1a7e4b0d3e61", "C-2026-004512", 7)
	require.NoError(t, err)
	assert.Equal(t, "CT#C-2026-004512#IN#007", k.SK)
	_, err = lastro.InstallmentKey("t042", "9f2c1a7e4b0d3e61", "C-2026-004512", 1000)
	assert.ErrorContains(t, err, "seq 1000 does not fit in 3 digits")
	back, err := lastro.ParseInstallmentKey(k)
	require.NoError(t, err)
	assert.Equal(t, int64(7), back.Seq)
	assert.Equal(t, "C-2026-004512", back.ContractID)
	ck, err := lastro.ContractKey("t042", "9f2c1a7e4b0d3e61", "C-2026-004512")
	require.NoError(t, err)
	_, err = lastro.ParseInstallmentKey(ck)
	var ke *lastro.KeyError
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, "CONTRACT", ke.Is)
	assert.ErrorContains(t, err, "is the key of entity CONTRACT, not of INSTALLMENT")
	// The HMAC debtor key is the catalog's.
	secret := lastro.TenantSecret{Version: 1, Key: []byte("k")}
	assert.Equal(t, catalog.HMACHex([]byte("k"), "12345678909", 16), lastro.DebtorKeyOf(secret, "123.456.789-09"))
}

// The variant type's zero value is the common path (the largest share):
// an input that chooses no variant runs exactly what the common variant
// runs, and is valid.
func TestLastroZeroVariantIsTheCommonPath(t *testing.T) {
	run := func(v lastro.ApplySettlementVariant) (lastro.ApplySettlementResult, error) {
		c, db := openLastro(t)
		seedSettlement(t, db)
		in := settlement()
		in.Variant = v
		return c.ApplySettlement(context.Background(), in)
	}
	zero, err := run("")
	require.NoError(t, err)
	common, err := run(lastro.ApplySettlementOnTime)
	require.NoError(t, err)
	assert.Equal(t, common, zero)
	_, err = run("nonsense")
	assert.ErrorContains(t, err, `variant "nonsense" is not one of`)
}
