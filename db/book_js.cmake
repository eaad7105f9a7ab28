# Writes OUT (a C file) holding IN (db/book.js) as the string BOOK_JS.
file(READ ${IN} js)
string(REPLACE "\\" "\\\\" js "${js}")
string(REPLACE "\"" "\\\"" js "${js}")
string(REPLACE "\n" "\\n\"\n\"" js "${js}")
file(WRITE ${OUT} "/* made at build time from db/book.js */\nconst char BOOK_JS[] =\n\"${js}\";\n")
