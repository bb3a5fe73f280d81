-- ScriptLayoutTest's: included after extend-lease.lua at the top level, so its nested include is already there.
if ARGV[2] == 'y' then
  --#include extend-lease.lua (defines extendLease)
end
