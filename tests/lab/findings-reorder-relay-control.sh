#!/usr/bin/env bash
# findings-reorder-relay-control.sh TCPSIFT [LAB_PEER] - the control of
# findings-reorder-relay.sh: the same relay and transfer, nothing held, so
# tcpsift must report no out-of-order segment, no reorder event, extent 0.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
REORDER_CONTROL=1 exec bash "$(dirname "${BASH_SOURCE[0]}")/findings-reorder-relay.sh" "$@"
