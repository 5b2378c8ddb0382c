// Package optimize decides which jobs run together in which phase, on how many
// VMs and in which role, and where every VM goes; it writes the result as a
// plan document.
//
// The pipeline:
//
//	Problem (jobs + cluster)
//	  → a solver returns a Schedule   (sequential, pair scheduler; more in later work)
//	  → Schedule.Check                (every constraint of seed 003, section 5.2)
//	  → Place, per phase              (hosts, disks, roles; end of section 5.2)
//	  → Plan, a JSON document         (read by apply, simulate and users' scripts)
//
// Everything here is pure: no clocks, files or randomness without a seed.
package optimize
