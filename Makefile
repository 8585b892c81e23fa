# Shortcuts for the scripts; the scripts are the reference (README.md).
.PHONY: demo test fuzz

demo:
	scripts/demo.sh

test:
	scripts/test.sh

# FUZZTIME per target, default 10m.
fuzz:
	scripts/fuzz.sh
