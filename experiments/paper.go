package experiments

import (
	"errors"
	"fmt"
	"strings"
)

// Paper is a publication whose headline experiments packer regenerates.
type Paper struct {
	// Name is the short name used on the command line and in JSON: "packing".
	Name string
	// Authors are the authors' surnames in the paper's order.
	Authors []string
	// Title is the paper's full title.
	Title string
	// Venue is the conference and year: "CloudDB 2009".
	Venue string
}

// The papers, in the order their experiments are listed.
var (
	DPPaper = Paper{Name: "dp", Authors: []string{"Sandholm", "Lai"},
		Title: "Dynamic Proportional Share Scheduling in Hadoop", Venue: "JSSPP 2010"}
	DelayPaper = Paper{Name: "delay", Authors: []string{"Zaharia", "Borthakur", "Sen Sarma", "Elmeleegy", "Shenker", "Stoica"},
		Title: "Delay Scheduling: A Simple Technique for Achieving Locality and Fairness in Cluster Scheduling", Venue: "EuroSys 2010"}
	HybSPaper = Paper{Name: "hybs", Authors: []string{"Nguyen", "Simon", "Halem", "Chapman", "Le"},
		Title: "A Hybrid Scheduling Algorithm for Data Intensive Workloads in a MapReduce Environment", Venue: "UCC 2012"}
	TyrexPaper = Paper{Name: "tyrex", Authors: []string{"Ghiț", "Epema"},
		Title: "Tyrex: Size-Based Resource Allocation in MapReduce Frameworks", Venue: "CCGrid 2016"}
	PackingPaper = Paper{Name: "packing", Authors: []string{"Aboulnaga", "Wang", "Zhang"},
		Title: "Packing the Most Onto Your Cloud", Venue: "CloudDB 2009"}
)

// Papers lists every paper, in the order of All's experiments.
func Papers() []Paper {
	return []Paper{DPPaper, DelayPaper, HybSPaper, TyrexPaper, PackingPaper}
}

// ErrUnknown is wrapped by the errors for a paper or experiment name that is
// not in the registry.
var ErrUnknown = errors.New("unknown")

// PaperNamed returns the paper with the given short name.
func PaperNamed(name string) (Paper, error) {
	var known []string
	for _, p := range Papers() {
		if p.Name == name {
			return p, nil
		}
		known = append(known, p.Name)
	}
	return Paper{}, fmt.Errorf("experiments: %w paper %q (want one of %s)", ErrUnknown, name, strings.Join(known, ", "))
}

// Cite is the short citation for running text: "Sandholm & Lai, JSSPP 2010"
// for two authors, "Aboulnaga et al., CloudDB 2009" for more.
func (p Paper) Cite() string {
	var who string
	switch len(p.Authors) {
	case 0:
	case 1:
		who = p.Authors[0]
	case 2:
		who = p.Authors[0] + " & " + p.Authors[1]
	default:
		who = p.Authors[0] + " et al."
	}
	if who == "" {
		return p.Venue
	}
	return who + ", " + p.Venue
}

// Citation is the full reference: authors, quoted title, venue.
func (p Paper) Citation() string {
	return fmt.Sprintf("%s, \"%s\", %s", strings.Join(p.Authors, ", "), p.Title, p.Venue)
}

// String is the short name.
func (p Paper) String() string { return p.Name }

// MarshalText writes the short name, so a Result's JSON names its paper
// the way the command line does.
func (p Paper) MarshalText() ([]byte, error) { return []byte(p.Name), nil }

// UnmarshalText reads a short name back into the registry's paper.
func (p *Paper) UnmarshalText(b []byte) error {
	q, err := PaperNamed(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}
