#!/bin/sh
# plots/claims.json against the configs (host only): every claim names the
# documents it is computed from, a config of the quick, check and paper scales
# (a two-host figure: paper only; or a CoRM simulator document of run_all.sh),
# of the claim's experiment, and every parameter its selectors ("select",
# "ratio") use is a parameter of that config, swept or fixed, with the value
# selected among the config's values. Every figure the claims file lists is
# drawn at those scales. Then the same checks on broken claims, which must
# fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Figures no single host can run (the memory node alone on its host, the
# packet path between two guests): not in run_all.sh's quick or check scale.
two_host="clover-fig2 clover-fig4"
# The documents of CoRM's simulator, which run_all.sh runs (no config).
tools="corm-fig7 corm-fig17 corm-fig18"
in_list() { case " $2 " in *" $1 "*) true ;; *) false ;; esac; }

# scales DOC: the config directories a claim on DOC must find it in
scales() {
	if in_list "$1" "$two_host"; then echo configs/paper; else echo configs/quick configs/check configs/paper; fi
}

# problems CLAIM_JSON: one line per problem of this claim (none: it is fine)
problems() {
	docs=$(printf '%s' "$1" | jq -r '.documents // empty')
	exp=$(printf '%s' "$1" | jq -r '.experiment')
	[ -n "$docs" ] || { echo "no \"documents\": nothing says which config it is computed from"; return; }
	if in_list "$docs" "$tools"; then
		[ "$exp" = corm-sim ] || echo "$docs is a CoRM simulator document, but the claim's experiment is $exp"
		return
	fi
	for dir in $(scales "$docs"); do
		found=0
		for cfg in "$dir"/$docs.json; do
			[ -r "$cfg" ] || continue
			found=1
			# the selectors' parameters, each with the value selected, against
			# the config's params (a scalar is a one-value axis); values
			# compare as text, so 0.5 matches 0.5 and true matches true
			printf '%s' "$1" | jq -r --slurpfile c "$cfg" --arg cfg "$cfg" '
				($c[0]) as $c |
				(if $c.experiment != .experiment then "\($cfg) is a \($c.experiment) config, the claim says \(.experiment)" else empty end),
				([.select // {}, .ratio.num // {}, .ratio.den // {}] | map(to_entries[]) | .[]) as $s |
				($c.params[$s.key]) as $v |
				if $v == null then "\($cfg) has no parameter \($s.key) (the claim selects \($s.key)=\($s.value))"
				elif ([$v] | flatten | map(tostring) | index($s.value | tostring)) == null then
					"\($cfg) never runs \($s.key)=\($s.value) (its values: \([$v] | flatten | map(tostring) | join(", ")))"
				else empty end' 2>&1
		done
		[ "$found" = 1 ] || echo "no config $docs in $dir"
	done
}

jq -c '.papers[].claims[]' plots/claims.json >"$tmp/claims"
[ -s "$tmp/claims" ] || notok "plots/claims.json holds no claim"
while read -r c; do
	id=$(printf '%s' "$c" | jq -r .id)
	p=$(problems "$c" | tr '\n' ';')
	if [ -z "$p" ]; then ok "claim $id: $(printf '%s' "$c" | jq -r .documents) at $(scales "$(printf '%s' "$c" | jq -r .documents)" | sed 's/configs\///g')"
	else notok "claim $id: $p"; fi
done <"$tmp/claims"

# Every figure a paper lists is drawn at those scales (the report looks for it).
drawn() { # drawn DIR: the figures a scale's configs draw
	for cfg in "$1"/*.json; do
		jq -r --arg self "$(basename "$cfg" .json)" '.plots // [] | .[] | .figure // $self' "$cfg"
	done
}
for dir in configs/quick configs/check configs/paper; do drawn "$dir" >"$tmp/${dir#configs/}.figs"; done
for fig in $(jq -r '.papers[].figures[].figure' plots/claims.json); do
	miss=""
	if ! in_list "$fig" "$tools"; then
		for dir in $(scales "$fig"); do grep -qx "$fig" "$tmp/${dir#configs/}.figs" || miss="$miss ${dir#configs/}"; done
	fi
	if [ -z "$miss" ]; then ok "figure $fig is drawn"; else notok "figure $fig is drawn by no config of:$miss"; fi
done

# The checks must catch broken claims (on alock-fig5, whose configs hold
# lock, locks and p_local at every scale).
bad() { # bad "what" CLAIM_JSON
	if [ -n "$(problems "$2")" ]; then ok "caught: $1"; else notok "not caught: $1"; fi
}
bad "no documents" '{"id":"x","experiment":"lock","select":{"lock":"alock"}}'
bad "a config no scale has" '{"id":"x","experiment":"lock","documents":"alock-fig9","select":{}}'
bad "another experiment" '{"id":"x","experiment":"txn","documents":"alock-fig5","select":{}}'
bad "a parameter the config lacks" '{"id":"x","experiment":"lock","documents":"alock-fig5","select":{"window":3}}'
bad "a value the config never runs" '{"id":"x","experiment":"lock","documents":"alock-fig5","select":{"lock":"ticket"}}'
bad "a ratio side the config never runs" '{"id":"x","experiment":"lock","documents":"alock-fig5","select":{},"ratio":{"num":{"p_local":100},"den":{"p_local":7}}}'
bad "a simulator document under another experiment" '{"id":"x","experiment":"corm","documents":"corm-fig17","select":{}}'
bad "a two-host figure's claim on another experiment" '{"id":"x","experiment":"lock","documents":"clover-fig2","select":{}}'
if [ -z "$(problems '{"id":"x","experiment":"lock","documents":"alock-fig5","select":{"p_local":100},"ratio":{"num":{"lock":"alock"},"den":{"lock":"mcs"}}}')" ]; then
	ok "a good claim passes"
else
	notok "a good claim fails: $(problems '{"id":"x","experiment":"lock","documents":"alock-fig5","select":{"p_local":100},"ratio":{"num":{"lock":"alock"},"den":{"lock":"mcs"}}}')"
fi
t_summary
