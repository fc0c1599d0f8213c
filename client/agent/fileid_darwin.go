package agent

import "syscall"

// changeTime returns a stat's change time in nanoseconds.
func changeTime(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }
