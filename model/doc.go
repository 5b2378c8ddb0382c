// Package model holds what every other part of packer reads: jobs with their
// runtime models, their CPU/IO classes, workloads (job sets) and the physical
// cluster they are planned onto.
//
// A runtime model F(n) predicts a job's wall time in seconds on n VMs when it
// runs alone, behind the Model interface. The default is the power law
// F(n) = a·n^b, fitted by least squares in log-log space (Aboulnaga et al.,
// "Packing the Most Onto Your Cloud", CloudDB 2009, section 4); its siblings
// are Amdahl's law a + c/n, the Ernest form θ0 + θ1/n + θ2·ln n + θ3·n (both
// fitted by non-negative least squares) and a measured Table. ChooseModel
// picks among them by leave-one-node-count-out prediction error. F(0) = 0 so
// that a job given no VMs in a phase contributes nothing to it.
//
// It also holds the vocabulary of phase planning that the solvers (optimize),
// the plan document (plan) and its readers share: Problem, Role, Assignment,
// Phase, Schedule, the placement of VMs on machines, and Solution.
//
// Data flows one way through packer: profile → model → optimize/pso → plan
// document → apply | simulate. This package imports none of the others.
package model
