-- ScriptLayoutTest's: an include inside a block, then the same file at the top level.
if ARGV[1] == 'x' then
  --#include extend-lease.lua (defines extendLease)
end
--#include extend-lease.lua (defines extendLease)
--#include test-top-then-nested.lua
