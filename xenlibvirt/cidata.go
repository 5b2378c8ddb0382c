package xenlibvirt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// NoCloudFile is one file at the root of a NoCloud seed volume.
type NoCloudFile struct {
	// Name is the file's name as Linux shows it: 1 to maxNoCloudName
	// characters of [a-z0-9._-], at most one '.', not ending in '.'.
	Name string
	Data []byte
}

// NoCloudLabel is the volume label cloud-init's NoCloud datasource, and
// packer's appliance, look for.
const NoCloudLabel = "cidata"

// MaxNoCloudBytes is the most file data one seed volume holds: 1 MiB. A seed
// carries a few KiB of configuration and scripts, never a payload.
const MaxNoCloudBytes = 1 << 20

// maxNoCloudName is ISO 9660 level 2's limit on a file name with its
// extension, 30 characters (ECMA-119 7.5.2).
const maxNoCloudName = 30

// NoCloudISO returns an ISO 9660 image whose volume label is "cidata"
// (NoCloudLabel) holding files at its root, as cloud-init's NoCloud
// datasource reads it: meta-data, user-data, network-config, and whatever
// else the guest is to find there. The image has no Rock Ridge or Joliet
// names: it records each name as the file identifier itself, "meta-data.;1",
// which Linux's isofs (mount -t iso9660, default map=normal) shows as
// "meta-data". ISO 9660 wants upper-case names without '-'; Linux and the
// tools that read the image (isoinfo, xorriso, blkid) take them as written.
// The bytes depend on files alone, in any order: the records' dates are
// 1970-01-01 00:00 UTC, the volume's are left unspecified.
//
// It rejects a name that is not a valid NoCloudFile.Name, a name given twice
// and files of more than MaxNoCloudBytes in all.
func NoCloudISO(files []NoCloudFile) ([]byte, error) {
	total := 0
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if err := checkNoCloudName(f.Name); err != nil {
			return nil, err
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("xenlibvirt: cidata file %q: given twice", f.Name)
		}
		seen[f.Name] = true
		total += len(f.Data)
	}
	if total > MaxNoCloudBytes {
		return nil, fmt.Errorf("xenlibvirt: cidata files: %d bytes in all, over the limit of %d (1 MiB)", total, MaxNoCloudBytes)
	}

	// ECMA-119 9.3: a directory's records are in order of file name, then
	// extension, each compared padded with spaces; every character allowed
	// sorts after a space, so a shorter name comes first.
	sorted := append([]NoCloudFile(nil), files...)
	sort.Slice(sorted, func(i, j int) bool {
		ni, ei, _ := strings.Cut(sorted[i].Name, ".")
		nj, ej, _ := strings.Cut(sorted[j].Name, ".")
		if ni != nj {
			return ni < nj
		}
		return ei < ej
	})

	ids := make([][]byte, len(sorted))
	for i, f := range sorted {
		id := f.Name
		if !strings.Contains(id, ".") {
			id += "." // ECMA-119 7.5.1: the separator is always there
		}
		ids[i] = []byte(id + ";1")
	}
	// Records do not cross a sector boundary (ECMA-119 6.8.1.1): one that
	// would starts the next sector.
	dirSectors, used := 1, 2*isoRecordLen(1) // "." and ".."
	for _, id := range ids {
		n := isoRecordLen(len(id))
		if used+n > isoSector {
			dirSectors, used = dirSectors+1, 0
		}
		used += n
	}
	next := rootSector + dirSectors
	extents := make([]int, len(sorted))
	for i, f := range sorted {
		extents[i] = next
		next += (len(f.Data) + isoSector - 1) / isoSector
	}
	img := make([]byte, next*isoSector)

	rootLen := dirSectors * isoSector
	isoDescriptors(img, next, rootLen)

	dir := img[rootSector*isoSector : (rootSector+dirSectors)*isoSector]
	at := 0
	for _, id := range [][]byte{{0}, {1}} { // "." and ".."
		at += isoDirRecord(dir[at:], id, rootSector, rootLen, isoFlagDir)
	}
	for i, f := range sorted {
		if n := isoRecordLen(len(ids[i])); at%isoSector+n > isoSector {
			at += isoSector - at%isoSector
		}
		at += isoDirRecord(dir[at:], ids[i], extents[i], len(f.Data), 0)
		copy(img[extents[i]*isoSector:], f.Data)
	}
	return img, nil
}

// checkNoCloudName returns why name cannot name a file on a seed volume, or
// nil.
func checkNoCloudName(name string) error {
	if name == "" || len(name) > maxNoCloudName {
		return fmt.Errorf("xenlibvirt: cidata file %q: name must be 1 to %d characters", name, maxNoCloudName)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("xenlibvirt: cidata file %q: name has %q; only a-z, 0-9, '.', '_' and '-' are allowed", name, r)
		}
	}
	// ISO 9660 has one separator between name and extension, and Linux
	// drops a trailing '.' from what it shows.
	if strings.Count(name, ".") > 1 || strings.HasSuffix(name, ".") {
		return fmt.Errorf("xenlibvirt: cidata file %q: name must have at most one '.', not at its end", name)
	}
	return nil
}

const (
	isoSector  = 2048
	isoFlagDir = 2
)

// isoEpoch is every directory record's date, 1970-01-01 00:00:00 UTC:
// years since 1900, month, day, hour, minute, second, offset from UTC.
var isoEpoch = [7]byte{70, 1, 1, 0, 0, 0, 0}

// isoRecordLen is the length of a directory record whose identifier is
// idLen bytes: 33 bytes and the identifier, padded to an even length.
func isoRecordLen(idLen int) int { return 33 + idLen + (idLen+1)%2 }

// isoDirRecord writes a directory record (ECMA-119 9.1) at the start of b and
// returns its length.
func isoDirRecord(b, id []byte, extent, size int, flags byte) int {
	n := isoRecordLen(len(id))
	b[0] = byte(n)
	isoBoth32(b[2:], uint32(extent))
	isoBoth32(b[10:], uint32(size))
	copy(b[18:25], isoEpoch[:])
	b[25] = flags
	isoBoth16(b[28:], 1) // volume sequence number
	b[32] = byte(len(id))
	copy(b[33:], id)
	return n
}

// isoBoth32 and isoBoth16 write v in both byte orders, little-endian first
// (ECMA-119 7.3.3, 7.2.3).
func isoBoth32(b []byte, v uint32) {
	binary.LittleEndian.PutUint32(b, v)
	binary.BigEndian.PutUint32(b[4:], v)
}

func isoBoth16(b []byte, v uint16) {
	binary.LittleEndian.PutUint16(b, v)
	binary.BigEndian.PutUint16(b[2:], v)
}

// isoPadded fills field with s and spaces after it.
func isoPadded(field []byte, s string) {
	copy(field, bytes.Repeat([]byte{' '}, len(field)))
	copy(field, s)
}

// The layout, in 2048-byte sectors: 16 empty (the system area), the
// primary volume descriptor, the terminator, the path table in little-
// then in big-endian order, the root directory, then each file's data from
// the start of a sector.
const (
	pvdSector   = 16
	lPathSector = 18
	mPathSector = 19
	rootSector  = 20
)

// isoDescriptors writes the primary volume descriptor, the terminator and
// the path tables of an image of sectors sectors whose root directory is
// rootLen bytes long.
func isoDescriptors(img []byte, sectors, rootLen int) {
	next := sectors
	pvd := img[pvdSector*isoSector:]
	pvd[0] = 1 // primary volume descriptor
	copy(pvd[1:], "CD001")
	pvd[6] = 1
	isoPadded(pvd[8:40], "")            // system identifier
	isoPadded(pvd[40:72], NoCloudLabel) // volume identifier
	isoBoth32(pvd[80:], uint32(next))   // volume space size
	isoBoth16(pvd[120:], 1)             // volume set size
	isoBoth16(pvd[124:], 1)             // volume sequence number
	isoBoth16(pvd[128:], isoSector)     // logical block size
	isoBoth32(pvd[132:], 10)            // path table size: the root's record
	binary.LittleEndian.PutUint32(pvd[140:], lPathSector)
	binary.BigEndian.PutUint32(pvd[148:], mPathSector)
	isoDirRecord(pvd[156:190], []byte{0}, rootSector, rootLen, isoFlagDir)
	isoPadded(pvd[190:318], "") // volume set
	isoPadded(pvd[318:446], "") // publisher
	isoPadded(pvd[446:574], "") // data preparer
	isoPadded(pvd[574:702], "PACKER")
	isoPadded(pvd[702:739], "") // copyright file
	isoPadded(pvd[739:776], "") // abstract file
	isoPadded(pvd[776:813], "") // bibliographic file
	// The volume's dates, created, modified, expires and effective: not
	// specified, 16 zero digits and a zero offset.
	for _, at := range []int{813, 830, 847, 864} {
		copy(pvd[at:], "0000000000000000")
	}
	pvd[881] = 1 // file structure version

	term := img[(pvdSector+1)*isoSector:]
	term[0] = 255 // volume descriptor set terminator
	copy(term[1:], "CD001")
	term[6] = 1

	// The path table has one record, the root's: identifier length 1,
	// extent, parent directory number 1 (itself), identifier 0, padding.
	lpt := img[lPathSector*isoSector:]
	lpt[0] = 1
	binary.LittleEndian.PutUint32(lpt[2:], rootSector)
	binary.LittleEndian.PutUint16(lpt[6:], 1)
	mpt := img[mPathSector*isoSector:]
	mpt[0] = 1
	binary.BigEndian.PutUint32(mpt[2:], rootSector)
	binary.BigEndian.PutUint16(mpt[6:], 1)

}
