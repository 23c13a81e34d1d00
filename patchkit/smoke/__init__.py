"""GPU smoke test: boot the patched server, drive the first decode request, cross the
threshold both ways, compare greedy outputs, scan the log, tear down, write the sign-off."""
