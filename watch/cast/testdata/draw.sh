#!/bin/sh
# Draws what a terminal must get right to replay an agent's screen:
# scrolling, a cleared screen, colours, wide characters, a wrapped line,
# cursor moves, erasing, carriage returns, bare line feeds.
i=1
while [ $i -le 60 ]; do printf 'scrolled line %d\n' $i; i=$((i+1)); done
printf '\033[H\033[2J'
printf '\033[1;31mred bold\033[0m plain \033[42mgreen back\033[0m \033[38;5;208mcolour 208\033[0m\n'
printf 'wide: 漢字テスト accents: é ü ñ ✓ emoji: 🙂\n'
long=''
j=0
while [ $j -lt 30 ]; do long="${long}wrap$j-"; j=$((j+1)); done
printf '%s\n' "$long"
printf '\033[10;20Hat row 10 col 20'
printf '\033[5;1H\033[Kline five replaced'
printf '\033[12;1Hhalf\rHALF'
printf '\033[1;3H\033[2P'
printf '\033[14;1Habcdefgh\033[14;4H\033[K'
# A bare line feed, as a program in raw mode writes it, keeps the column.
stty -opost
printf '\033[16;1Hstairs\ndown\nhere'
stty opost
printf '\033[20;1Hend-of-drawing\n'
