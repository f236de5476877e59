#!/usr/bin/env bash
# Placeholder until the Kubernetes backend lands: nothing to build yet.
exit 0
