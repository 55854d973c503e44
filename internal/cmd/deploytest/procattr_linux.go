package main

import "syscall"

// procAttr puts a child in its own process group (so that a stop reaches
// nginx's workers too) and has the kernel stop it if this program dies
// without stopping it (killed, or crashed).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
