#!/bin/sh
# One connection of the simulated traffic agent: its first line names where the replaced workload listens from the
# daemon's point of view (`<address> <port>`, the `replace --address/--port` values); the rest is piped there.
read -r address port
exec nc "$address" "$port"
