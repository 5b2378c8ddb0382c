// Package model holds what every other part of packer reads: jobs with their
// runtime models, their CPU/IO classes, workloads (job sets) and the physical
// cluster they are planned onto.
//
// A runtime model F(n) predicts a job's wall time in seconds on n VMs when it
// runs alone. packer's models are power laws, F(n) = a·n^b, fitted by least
// squares in log-log space (seed 003, section 4); F(0) = 0 so that a job given
// no VMs in a phase contributes nothing to it.
//
// Data flows one way through packer: profile → model → optimize/pso → plan
// document → apply | simulate. This package imports none of the others.
package model
