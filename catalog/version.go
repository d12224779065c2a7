package catalog

// FormatVersion is the version of the model format this package writes
// and reads best. Version 1 is read too, as long as it uses none of the
// scale fields version 2 replaced; Migrate rewrites one that does.
const FormatVersion = 2

// V1Scale describes the fields of formatVersion 1's scale section. That
// section spoke the words of one business (contracts, debtors, tenants,
// buckets); version 2 says the same things generically: populations on
// entities, skews and value shares on attributes, a business unit, named
// peaks. Only the refusal of an old scale and its migration read these names: they are the old format's,
// not any model's.
var V1Scale = map[string]string{
	"contracts":                             "Active contracts",
	"debtors":                               "Distinct debtors (debtor collections)",
	"instalmentsPerContract":                "Average instalments per contract",
	"delinquentShare":                       "Share of contracts in collection",
	"buckets":                               "Share of delinquent contracts in bucket",
	"tenants":                               "Tenants",
	"eventsPerInstalment":                   "Average audit events per instalment",
	"contactsPerDelinquentContractPerMonth": "Contact attempts per contract in collection per month",
	"smsShare":                              "Share of contact attempts sent by SMS",
	"promisesPerDay":                        "Pending promises due per day",
	"settlementsPerDay":                     "Settlements per ordinary day",
	"bucketMovesPerMonth":                   "Contracts changing bucket per month",
	"paydays":                               "Days that drive peaks",
}

// IsV1ScaleField reports whether name is a field of formatVersion 1's
// scale that version 2 replaced.
func IsV1ScaleField(name string) bool {
	_, ok := V1Scale[name]
	return ok && name != "storageGB" && name != "history"
}
