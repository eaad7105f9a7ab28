# Writes OUT (a C file) holding IN (db/book_diagram.js) as the string BOOK_DIAGRAM_JS.
file(READ ${IN} js)
string(REPLACE "\\" "\\\\" js "${js}")
string(REPLACE "\"" "\\\"" js "${js}")
string(REPLACE "\n" "\\n\"\n\"" js "${js}")
file(WRITE ${OUT} "/* made at build time from db/book_diagram.js */\nconst char BOOK_DIAGRAM_JS[] =\n\"${js}\";\n")
