#!/usr/bin/env bash
# findings-reorder-queues-control.sh TCPSIFT [LAB_PEER] - the control of
# findings-reorder-queues.sh: the same relay, delay and per-queue capture,
# but the flow stays on one queue, so tcpsift must report one queue, no
# switch and no reordering.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected on stdout.
REORDER_CONTROL=1 exec bash "$(dirname "${BASH_SOURCE[0]}")/findings-reorder-queues.sh" "$@"
