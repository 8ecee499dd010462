# netns-pair.sh - sourced: two network namespaces joined by a veth pair,
# standing for two hosts, and an mpirun launch agent that enters them.
#
#   netns_pair_up DIR   create them (root only); sets NS_A NS_B (names),
#                       HOST_A HOST_B (their addresses: what mpirun --host
#                       takes), NS_AGENT (the agent: called as ssh would be,
#                       AGENT HOST COMMAND, it runs COMMAND in HOST's
#                       namespace and notes the namespace in DIR/launched).
#                       Returns 1 when this machine refuses (no ip, no
#                       namespaces), 2 when setting them up failed midway;
#                       the reason in NS_WHY.
#   netns_pair_down     delete them (and the pair with them).
#   ns_mpirun ARGS...   mpirun (or oshrun: NS_RUN) started in NS_A with the
#                       agent, as root.
#
# Used by scripts/test-multinode.sh and bench/vs-oshmem.sh (HOSTS=2).

netns_pair_up() {
    dir=$1
    NS_A=shmemu-a$$ NS_B=shmemu-b$$
    ns_va=shua$$ ns_vb=shub$$
    ns_net=10.199.$(($$ % 250))
    HOST_A=$ns_net.1 HOST_B=$ns_net.2
    NS_WHY=""
    if ! command -v ip >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends iproute2 \
            >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends iproute2 >/dev/null 2>&1; }
        command -v ip >/dev/null 2>&1 || {
            NS_WHY="no ip command, and Debian's iproute2 could not be installed"
            return 1
        }
    fi
    if ! ip netns add "$NS_A" 2>"$dir/err"; then
        NS_WHY="this machine refuses network namespaces: $(cat "$dir/err")"
        return 1
    fi
    ip netns add "$NS_B" && ip link add "$ns_va" type veth peer name "$ns_vb" &&
        ip link set "$ns_va" netns "$NS_A" && ip link set "$ns_vb" netns "$NS_B" &&
        ip -n "$NS_A" addr add "$HOST_A/30" dev "$ns_va" &&
        ip -n "$NS_B" addr add "$HOST_B/30" dev "$ns_vb" &&
        ip -n "$NS_A" link set lo up && ip -n "$NS_B" link set lo up &&
        ip -n "$NS_A" link set "$ns_va" up && ip -n "$NS_B" link set "$ns_vb" up || {
        NS_WHY="could not set up the two namespaces (veth pair, addresses, links)"
        netns_pair_down
        return 2
    }
    NS_AGENT=$dir/agent
    cat >"$NS_AGENT" <<EOF
#!/bin/sh
host=\$1
shift
case \$host in
$HOST_A) ns=$NS_A ;;
$HOST_B) ns=$NS_B ;;
*) echo "agent: no namespace for host \$host" >&2; exit 1 ;;
esac
echo "\$ns" >>"$dir/launched"
exec ip netns exec "\$ns" /bin/sh -c "\$*"
EOF
    chmod +x "$NS_AGENT"
}

netns_pair_down() {
    ip netns del "$NS_A" 2>/dev/null
    ip netns del "$NS_B" 2>/dev/null
    return 0
}

# Each namespace's daemon takes the VM's CPUs for its own and binds its
# first process to CPU 0, so both "hosts" would share one CPU; two real
# hosts have CPUs each: no binding.
ns_mpirun() {
    ip netns exec "$NS_A" "${NS_RUN:-mpirun}" --allow-run-as-root \
        --mca plm_rsh_agent "$NS_AGENT" --bind-to none "$@"
}
