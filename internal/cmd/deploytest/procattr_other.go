//go:build unix && !linux

package main

import "syscall"

// procAttr puts a child in its own process group (so that a stop reaches
// nginx's workers too).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
