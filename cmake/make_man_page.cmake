# Writes the man page pairhist.1 with help2man: `pairhist --help` as the synopsis and options, and
# every subcommand's --help in a SUBCOMMANDS section, so the page says what the command says.
# Arguments: PAIRHIST (the program), HELP2MAN, OUTPUT.
execute_process(COMMAND ${PAIRHIST} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PAIRHIST} --help failed (${rc})")
endif()
# The subcommands are listed under "SUBCOMMANDS:" (CLI11), one per line: "  name   description".
string(REGEX REPLACE ".*SUBCOMMANDS:\n" "" listing "${top}")
string(REGEX MATCHALL "(^|\n)  [a-z][a-z0-9-]*" names "${listing}")
set(include_text "[SUBCOMMANDS]\nEach subcommand's own help, as `pairhist SUBCOMMAND --help` prints it.\n")
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  execute_process(COMMAND ${PAIRHIST} ${name} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PAIRHIST} ${name} --help failed (${rc})")
  endif()
  # The usage line names the program as it was called: here the build tree's path.
  string(REPLACE "${PAIRHIST} " "pairhist " help "${help}")
  # roff: backslashes escaped, no line may start with a control character.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND include_text ".SS pairhist ${name}\n.nf\n${help}.fi\n")
endforeach()
string(APPEND include_text "[SEE ALSO]\nThe README and docs/ of the pairhist sources; the Python module: \
python3 -c 'import pairhist; help(pairhist)'.\n")
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${dir}/subcommands.h2m" "${include_text}")
execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr
  "--name=pair-distance histograms and g(r) of MD trajectories on all CPU cores and GPUs"
  --include "${dir}/subcommands.h2m" --output "${OUTPUT}" ${PAIRHIST} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc})")
endif()
