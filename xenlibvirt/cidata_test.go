package xenlibvirt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// isoVolume is what readISO finds on an image: its label and its root's
// files, names as Linux shows them, in the order of the directory.
type isoVolume struct {
	Label string
	Files []NoCloudFile
}

// readISO reads an ISO 9660 image the way Linux's isofs does when it finds no
// Rock Ridge or Joliet: from the primary volume descriptor at sector 16 to the
// root directory, each name lower-cased with its ";1" or ".;1" dropped
// (fs/isofs/dir.c, isofs_name_translate). It is written from ECMA-119, not
// from NoCloudISO, and checks what a reader relies on: the descriptor set,
// the both-endian fields agreeing, the path table naming the root, records
// within sectors and in order, extents within the volume.
func readISO(img []byte) (isoVolume, error) {
	const sector = 2048
	if len(img)%sector != 0 || len(img) < 18*sector {
		return isoVolume{}, fmt.Errorf("image is %d bytes, not whole sectors past the descriptors", len(img))
	}
	pvd := img[16*sector : 17*sector]
	if pvd[0] != 1 || string(pvd[1:6]) != "CD001" || pvd[6] != 1 || pvd[881] != 1 {
		return isoVolume{}, fmt.Errorf("sector 16 is no primary volume descriptor: % x", pvd[:7])
	}
	term := img[17*sector : 18*sector]
	if term[0] != 255 || string(term[1:6]) != "CD001" {
		return isoVolume{}, fmt.Errorf("sector 17 is no terminator: % x", term[:7])
	}
	both32 := func(b []byte, what string) (int, error) {
		le, be := binary.LittleEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
		if le != be {
			return 0, fmt.Errorf("%s: little-endian %d, big-endian %d", what, le, be)
		}
		return int(le), nil
	}
	both16 := func(b []byte, what string) (int, error) {
		le, be := binary.LittleEndian.Uint16(b), binary.BigEndian.Uint16(b[2:])
		if le != be {
			return 0, fmt.Errorf("%s: little-endian %d, big-endian %d", what, le, be)
		}
		return int(le), nil
	}
	sectors, err := both32(pvd[80:], "volume space size")
	if err != nil {
		return isoVolume{}, err
	}
	if sectors*sector != len(img) {
		return isoVolume{}, fmt.Errorf("volume space size %d sectors, image %d bytes", sectors, len(img))
	}
	if bs, err := both16(pvd[128:], "logical block size"); err != nil || bs != sector {
		return isoVolume{}, fmt.Errorf("logical block size %d, %v", bs, err)
	}
	root := pvd[156:190]
	if root[0] != 34 || root[32] != 1 || root[33] != 0 || root[25]&2 == 0 {
		return isoVolume{}, fmt.Errorf("root directory record: % x", root)
	}
	rootAt, err := both32(root[2:], "root extent")
	if err != nil {
		return isoVolume{}, err
	}
	rootLen, err := both32(root[10:], "root length")
	if err != nil {
		return isoVolume{}, err
	}
	if rootLen%sector != 0 || (rootAt+rootLen/sector) > sectors {
		return isoVolume{}, fmt.Errorf("root directory at sector %d, %d bytes, outside %d sectors", rootAt, rootLen, sectors)
	}
	// The path tables: the root's record, little- then big-endian.
	ptLen, err := both32(pvd[132:], "path table size")
	if err != nil {
		return isoVolume{}, err
	}
	for _, pt := range []struct {
		at    int
		order binary.ByteOrder
	}{{int(binary.LittleEndian.Uint32(pvd[140:])), binary.LittleEndian}, {int(binary.BigEndian.Uint32(pvd[148:])), binary.BigEndian}} {
		if ptLen < 10 || pt.at <= 17 || pt.at >= sectors {
			return isoVolume{}, fmt.Errorf("path table at sector %d, %d bytes", pt.at, ptLen)
		}
		rec := img[pt.at*sector:]
		if rec[0] != 1 || int(pt.order.Uint32(rec[2:])) != rootAt || pt.order.Uint16(rec[6:]) != 1 || rec[8] != 0 {
			return isoVolume{}, fmt.Errorf("path table (%v) root record: % x", pt.order, rec[:10])
		}
	}

	v := isoVolume{Label: strings.TrimRight(string(pvd[40:72]), " ")}
	dir := img[rootAt*sector : rootAt*sector+rootLen]
	var prev string
	for at, i := 0, 0; at < len(dir); i++ {
		n := int(dir[at])
		if n == 0 { // the rest of this sector is padding
			at = (at/sector + 1) * sector
			continue
		}
		if n < 34 || at%sector+n > sector {
			return isoVolume{}, fmt.Errorf("record at byte %d: length %d crosses a sector or is short", at, n)
		}
		r := dir[at : at+n]
		at += n
		id := r[33 : 33+int(r[32])]
		if i < 2 { // "." and ".."
			if len(id) != 1 || id[0] != byte(i) || r[25]&2 == 0 {
				return isoVolume{}, fmt.Errorf("record %d is %q, not the directory's own", i, id)
			}
			continue
		}
		if r[25]&2 != 0 {
			return isoVolume{}, fmt.Errorf("%q is a directory", id)
		}
		ext, err := both32(r[2:], string(id)+" extent")
		if err != nil {
			return isoVolume{}, err
		}
		size, err := both32(r[10:], string(id)+" size")
		if err != nil {
			return isoVolume{}, err
		}
		if size > 0 && (ext < rootAt || ext*sector+size > len(img)) {
			return isoVolume{}, fmt.Errorf("%q: %d bytes at sector %d, outside the volume", id, size, ext)
		}
		raw := string(id)
		// ECMA-119 7.5.1: name, '.', extension, ';', version; the '.' is
		// there even without an extension.
		if base, _, ok := strings.Cut(raw, ";"); !ok || strings.Count(base, ".") != 1 {
			return isoVolume{}, fmt.Errorf("identifier %q is not NAME.EXT;VERSION", raw)
		}
		if prev != "" && !isoBefore(prev, raw) {
			return isoVolume{}, fmt.Errorf("%q after %q: out of order", raw, prev)
		}
		prev = raw
		name := strings.ToLower(raw)
		if strings.HasSuffix(name, ".;1") {
			name = strings.TrimSuffix(name, ".;1")
		} else {
			name = strings.TrimSuffix(name, ";1")
		}
		v.Files = append(v.Files, NoCloudFile{Name: name, Data: img[ext*sector : ext*sector+size]})
	}
	return v, nil
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// isoBefore reports whether identifier a comes before b in a directory
// (ECMA-119 9.3): by file name, then extension, the shorter of each padded
// with spaces, then by version.
func isoBefore(a, b string) bool {
	split := func(id string) (name, ext, version string) {
		id, version, _ = strings.Cut(id, ";")
		name, ext, _ = strings.Cut(id, ".")
		return
	}
	pad := func(x, y string) (string, string) {
		for len(x) < len(y) {
			x += " "
		}
		for len(y) < len(x) {
			y += " "
		}
		return x, y
	}
	an, ae, av := split(a)
	bn, be, bv := split(b)
	if an != bn {
		an, bn = pad(an, bn)
		return an < bn
	}
	if ae != be {
		ae, be = pad(ae, be)
		return ae < be
	}
	return av < bv
}

func TestNoCloudISO(t *testing.T) {
	files := []NoCloudFile{
		{Name: "user-data", Data: []byte("#cloud-config\nhostname: sum-0\n")},
		{Name: "meta-data", Data: []byte("instance-id: packer-p-p1-sum-0\nlocal-hostname: sum-0\n")},
		{Name: "network-config", Data: []byte("version: 2\n")},
		{Name: "packer-job.sh", Data: bytes.Repeat([]byte("echo job\n"), 500)}, // 4500 bytes: 3 sectors
		{Name: "packer-hosts", Data: []byte("10.77.0.10 sum-0\n10.77.0.11 sum-1\n")},
		{Name: "packer-net.env", Data: []byte("PACKER_MAC=52:54:00:00:00:10\nPACKER_ADDRESS=10.77.0.10/24\n")},
		{Name: "empty", Data: nil},
	}
	img, err := NoCloudISO(files)
	if err != nil {
		t.Fatal(err)
	}
	// 16 system + 2 descriptors + 2 path tables + 1 directory = 21 sectors,
	// then data: 1+1+1+3+1+1 = 8, none for the empty file: 29 sectors.
	if want := 29 * 2048; len(img) != want {
		t.Errorf("image is %d bytes, want %d", len(img), want)
	}
	v, err := readISO(img)
	if err != nil {
		t.Fatal(err)
	}
	if v.Label != "cidata" {
		t.Errorf("label %q, want cidata", v.Label)
	}
	// In the directory's order: by name, then extension.
	order := []string{"empty", "meta-data", "network-config", "packer-hosts", "packer-job.sh", "packer-net.env", "user-data"}
	var got []string
	for _, f := range v.Files {
		got = append(got, f.Name)
	}
	if strings.Join(got, " ") != strings.Join(order, " ") {
		t.Errorf("files %q, want %q", got, order)
	}
	byName := map[string][]byte{}
	for _, f := range v.Files {
		byName[f.Name] = f.Data
	}
	for _, f := range files {
		if got := byName[f.Name]; !bytes.Equal(got, f.Data) {
			t.Errorf("%s reads back as %d bytes, want %d; first difference at byte %d", f.Name, len(got), len(f.Data), firstDiff(got, f.Data))
		}
	}
	// The same files in another order make the same bytes.
	reversed := make([]NoCloudFile, len(files))
	for i, f := range files {
		reversed[len(files)-1-i] = f
	}
	again, err := NoCloudISO(reversed)
	if err != nil || !bytes.Equal(img, again) {
		t.Errorf("an image of the same files reversed differs (%v)", err)
	}
}

// TestNoCloudISOOrder checks ECMA-119 9.3's order, name then extension: "a"
// and "a.b" sort before "a-b" although '-' (0x2d) is less than '.' (0x2e).
func TestNoCloudISOOrder(t *testing.T) {
	img, err := NoCloudISO([]NoCloudFile{{Name: "a-b"}, {Name: "a.b"}, {Name: "a"}, {Name: "a.a"}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := readISO(img)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range v.Files {
		got = append(got, f.Name)
	}
	if want := "a a.a a.b a-b"; strings.Join(got, " ") != want {
		t.Errorf("order %q, want %q", got, want)
	}
}

// TestNoCloudISOManyFiles fills more than one directory sector, and so tests
// that no record crosses a sector boundary.
func TestNoCloudISOManyFiles(t *testing.T) {
	var files []NoCloudFile
	for i := range 100 {
		files = append(files, NoCloudFile{Name: fmt.Sprintf("file-%03d", i), Data: []byte(fmt.Sprint(i))})
	}
	img, err := NoCloudISO(files)
	if err != nil {
		t.Fatal(err)
	}
	// "file-000.;1" is 11 bytes, its record 33 + 11 = 44: after "." and ".."
	// (2 × 34 bytes) 45 fill the first sector (68 + 45 × 44 = 2048), 46 the
	// second (46 × 44 = 2024), 9 the third: 20 + 3 + 100 data sectors = 123.
	if want := 123 * 2048; len(img) != want {
		t.Errorf("image is %d bytes, want %d", len(img), want)
	}
	v, err := readISO(img)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Files) != len(files) {
		t.Fatalf("%d files read back, want %d", len(v.Files), len(files))
	}
	for i, f := range v.Files {
		if f.Name != files[i].Name || !bytes.Equal(f.Data, files[i].Data) {
			t.Errorf("file %d reads back as %s %q, want %s %q", i, f.Name, f.Data, files[i].Name, files[i].Data)
		}
	}
}

func TestNoCloudISOErrors(t *testing.T) {
	big := make([]byte, MaxNoCloudBytes/2+1)
	for _, c := range []struct {
		name  string
		files []NoCloudFile
		want  string
	}{
		{"upper case", []NoCloudFile{{Name: "User-Data"}}, `"User-Data": name has 'U'`},
		{"slash", []NoCloudFile{{Name: "a/b"}}, `name has '/'`},
		{"space", []NoCloudFile{{Name: "a b"}}, `name has ' '`},
		{"empty", []NoCloudFile{{Name: ""}}, "name must be 1 to 30 characters"},
		{"long", []NoCloudFile{{Name: strings.Repeat("a", 31)}}, "name must be 1 to 30 characters"},
		{"two dots", []NoCloudFile{{Name: "a.b.c"}}, "at most one '.'"},
		{"trailing dot", []NoCloudFile{{Name: "meta-data."}}, "not at its end"},
		{"dot", []NoCloudFile{{Name: "."}}, "not at its end"},
		{"duplicate", []NoCloudFile{{Name: "meta-data"}, {Name: "user-data"}, {Name: "meta-data"}}, `"meta-data": given twice`},
		// 2 × (512 KiB + 1) = 1 MiB + 2 bytes.
		{"too large", []NoCloudFile{{Name: "a", Data: big}, {Name: "b", Data: big}}, "1048578 bytes in all, over the limit of 1048576 (1 MiB)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			img, err := NoCloudISO(c.files)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
			if img != nil {
				t.Errorf("an image of %d bytes with the error", len(img))
			}
		})
	}
	// Exactly 1 MiB is allowed.
	if _, err := NoCloudISO([]NoCloudFile{{Name: "a", Data: make([]byte, MaxNoCloudBytes)}}); err != nil {
		t.Errorf("1 MiB: %v", err)
	}
}

// FuzzNoCloudISO: whatever names and bytes, NoCloudISO either refuses them or
// makes an image that reads back as exactly those files.
func FuzzNoCloudISO(f *testing.F) {
	f.Add("meta-data,user-data,packer-job.sh", []byte("local-hostname: sum-0\n"))
	f.Add("a-b,a.b,a", []byte{})
	f.Add("x,x", []byte("dup"))
	f.Fuzz(func(t *testing.T, names string, data []byte) {
		var files []NoCloudFile
		for i, n := range strings.Split(names, ",") {
			files = append(files, NoCloudFile{Name: n, Data: bytes.Repeat(data, i+1)})
		}
		img, err := NoCloudISO(files)
		if err != nil {
			return
		}
		v, err := readISO(img)
		if err != nil {
			t.Fatalf("%q: %v", names, err)
		}
		if v.Label != NoCloudLabel || len(v.Files) != len(files) {
			t.Fatalf("%q: label %q, %d files, want %d", names, v.Label, len(v.Files), len(files))
		}
		got := map[string][]byte{}
		for _, f := range v.Files {
			got[f.Name] = f.Data
		}
		for _, f := range files {
			if d, ok := got[f.Name]; !ok || !bytes.Equal(d, f.Data) {
				t.Errorf("%q: %s reads back as %d bytes (present %v), want %d; first difference at byte %d", names, f.Name, len(d), ok, len(f.Data), firstDiff(d, f.Data))
			}
		}
	})
}

// TestNoCloudISOReadByIsoinfo has another ISO 9660 reader than the test's
// own read the seed: isoinfo (Debian genisoimage) finds the label and
// extracts every file byte for byte.
func TestNoCloudISOReadByIsoinfo(t *testing.T) {
	isoinfo, err := exec.LookPath("isoinfo")
	if err != nil {
		t.Skip("isoinfo not installed (Debian package genisoimage; make deps installs it)")
	}
	files := []NoCloudFile{{"meta-data", []byte("instance-id: x\n")}, {"user-data", []byte("#cloud-config\n" + strings.Repeat("y", 5000))},
		{"packer-net.env", []byte("PACKER_MAC=52:54:00:00:00:01\n")}}
	img, err := NoCloudISO(files)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "seed.iso")
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(isoinfo, "-d", "-i", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Volume id: cidata\n") {
		t.Fatalf("isoinfo -d: %v\n%s", err, out)
	}
	for _, f := range files {
		id := "/" + f.Name + ";1"
		if !strings.Contains(f.Name, ".") {
			id = "/" + f.Name + ".;1"
		}
		got, err := exec.Command(isoinfo, "-i", path, "-x", id).Output()
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("isoinfo -x %s: %v: %d bytes, want %d", id, err, len(got), len(f.Data))
		}
	}
}
