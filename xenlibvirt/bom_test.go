package xenlibvirt

import "testing"

// An inventory saved with a UTF-8 byte order mark (Windows editors write one)
// reads like the same file without it.
func TestParseInventoryAcceptsBOM(t *testing.T) {
	inv, err := ParseInventory(append([]byte("\ufeff"), goodInventory...), "inv.json")
	if err != nil {
		t.Fatalf("inventory with a BOM: %v", err)
	}
	want, err := ParseInventory([]byte(goodInventory), "inv.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Hosts) != len(want.Hosts) || inv.Hosts[0].Name != want.Hosts[0].Name {
		t.Errorf("with a BOM: %+v, without: %+v", inv.Hosts, want.Hosts)
	}
}
