# npm ci of the browser test's packages into DST (a build folder), from the
# package.json and package-lock.json in SRC; skipped when DST already holds
# the same lock file's install.
file(MAKE_DIRECTORY ${DST})
file(SHA256 ${SRC}/package-lock.json lock_hash)
if(EXISTS ${DST}/node_modules/.damka-lock-hash)
  file(READ ${DST}/node_modules/.damka-lock-hash installed)
  if(installed STREQUAL lock_hash)
    message(STATUS "puppeteer-core already installed in ${DST}")
    return()
  endif()
endif()
configure_file(${SRC}/package.json ${DST}/package.json COPYONLY)
configure_file(${SRC}/package-lock.json ${DST}/package-lock.json COPYONLY)
execute_process(COMMAND ${NPM} ci --no-audit --no-fund --ignore-scripts WORKING_DIRECTORY ${DST} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "npm ci failed (${rc}) in ${DST}: the browser test needs puppeteer-core from npm")
endif()
file(WRITE ${DST}/node_modules/.damka-lock-hash ${lock_hash})
