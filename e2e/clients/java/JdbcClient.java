// Shoal's JDBC client check (MariaDB Connector/J).
//
// Runs what a JDBC BI tool does - connect, browse DatabaseMetaData
// (getCatalogs, getTables, getColumns), run a distributed aggregate, a
// server-side prepared statement with parameters, a passthrough SHOW, an
// error followed by a good statement - against each server named on the
// command line, and prints every result as tab-separated lines under a
// "=== server N" line, so e2e/jdbc_test.go can compare Shoal's answers with
// the primary's line by line. One JVM serves every server: its start and
// the compilation of this file are most of the run time.
//
// usage: java -cp mariadb-java-client.jar JdbcClient.java USER PASSWORD DATABASE HOST:PORT...
//
// Runs as a single-file source program (JDK 11+; needs the jdk.compiler
// module, which Debian's openjdk-17-jre-headless image has).

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.Properties;

public class JdbcClient {
    static final StringBuilder out = new StringBuilder();

    /** cell renders a value with its Java class, so mapping differences show. */
    static String cell(Object v) {
        if (v == null) {
            return "NULL";
        }
        String s;
        if (v instanceof byte[]) {
            StringBuilder h = new StringBuilder();
            for (byte b : (byte[]) v) {
                h.append(String.format("%02x", b));
            }
            s = h.toString();
        } else {
            s = v.toString();
        }
        s = s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
        return v.getClass().getSimpleName() + ":" + s;
    }

    /** print writes a result: its name, one line of columns, one line per row. */
    static void print(String name, ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        out.append("# ").append(name).append('\n');
        StringBuilder cols = new StringBuilder("cols");
        for (int i = 1; i <= n; i++) {
            cols.append('\t').append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i))
                .append(':').append(md.getColumnType(i)).append(':').append(md.getScale(i))
                .append(':').append(md.isNullable(i));
        }
        out.append(cols).append('\n');
        while (rs.next()) {
            StringBuilder row = new StringBuilder("row");
            for (int i = 1; i <= n; i++) {
                row.append('\t').append(cell(rs.getObject(i)));
            }
            out.append(row).append('\n');
        }
        rs.close();
    }

    /** query runs sql as a text query (Statement) and prints its result or error. */
    static void query(Connection c, String name, String sql) {
        try (Statement st = c.createStatement()) {
            print(name, st.executeQuery(sql));
        } catch (SQLException e) {
            error(name, e);
        }
    }

    static void error(String name, SQLException e) {
        out.append("# ").append(name).append('\n');
        out.append("error\t").append(e.getErrorCode()).append('\t').append(e.getSQLState()).append('\n');
    }

    static void run(String url, Properties props, String db) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, props)) {
            // What a BI tool browses on connect (DBeaver, Metabase's sync).
            DatabaseMetaData md = c.getMetaData();
            out.append("# product\t").append(md.getDatabaseProductName()).append('\t')
                .append(md.getDatabaseMajorVersion()).append('\n');
            out.append("# catalog\t").append(c.getCatalog()).append('\n');
            try (ResultSet rs = md.getCatalogs()) {
                StringBuilder cats = new StringBuilder("catalogs");
                while (rs.next()) {
                    if (rs.getString(1).equals(db)) {
                        cats.append('\t').append(rs.getString(1));
                    }
                }
                out.append(cats).append('\n');
            }
            print("getTables", md.getTables(db, null, "%", new String[] {"TABLE", "VIEW"}));
            print("getColumns ontime", md.getColumns(db, null, "ontime", "%"));
            print("getColumns carriers", md.getColumns(db, null, "carriers", "%"));
            print("getPrimaryKeys", md.getPrimaryKeys(db, null, "ontime"));

            // A distributed aggregate and a distributed row query.
            query(c, "distributed aggregate",
                "select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes), min(FlightDate), max(FlightDate), "
                    + "count(TailNum) from ontime group by Carrier order by Carrier");
            query(c, "distributed rows",
                "select id, FlightDate, Carrier, TailNum, ArrDelayMinutes from ontime "
                    + "where Origin = 'SFO' order by ArrDelayMinutes desc, id limit 10");

            // Server-side prepared statements (useServerPrepStmts=true):
            // one statement executed twice, and parameters of several types.
            String agg = "select Carrier, count(*), sum(Distance) from ontime "
                + "where YearD between ? and ? and Origin = ? group by Carrier order by Carrier";
            try (PreparedStatement ps = c.prepareStatement(agg)) {
                ps.setInt(1, 2000);
                ps.setInt(2, 2005);
                ps.setString(3, "SFO");
                print("prepared aggregate", ps.executeQuery());
                ps.setInt(1, 1995);
                ps.setInt(2, 2010);
                ps.setString(3, "LAX");
                print("prepared aggregate again", ps.executeQuery());
            } catch (SQLException e) {
                error("prepared aggregate", e);
            }
            String typed = "select count(*), min(FlightDate), max(Distance) from ontime "
                + "where FlightDate >= ? and Distance > ? and TailNum <=> ? and Cancelled = ?";
            try (PreparedStatement ps = c.prepareStatement(typed)) {
                ps.setDate(1, Date.valueOf("2001-01-01"));
                ps.setBigDecimal(2, new BigDecimal("500.5"));
                ps.setNull(3, Types.VARCHAR);
                ps.setBoolean(4, false);
                print("prepared typed parameters", ps.executeQuery());
            } catch (SQLException e) {
                error("prepared typed parameters", e);
            }
            try (PreparedStatement ps = c.prepareStatement("select code, name from carriers where name = ? or code = ?")) {
                ps.setString(1, "h\u00e9llo \u2708");
                ps.setString(2, "AA");
                print("prepared non-ascii", ps.executeQuery());
            } catch (SQLException e) {
                error("prepared non-ascii", e);
            }

            // Passthrough statements and values.
            query(c, "show columns", "SHOW COLUMNS FROM carriers");
            query(c, "show tables", "SHOW TABLES");
            query(c, "non-ascii", "select code, name from carriers where name <> convert(name using ascii) order by code");
            query(c, "nulls", "select TailNum, ArrDelayMinutes from ontime where TailNum is null or ArrDelayMinutes is null order by id limit 5");

            // An error, then a good statement on the same connection.
            query(c, "syntax error", "selec broken from ontime");
            query(c, "after errors", "select count(*), min(id), max(id) from ontime");
        }
    }

    public static void main(String[] args) throws Exception {
        String user = args[0], password = args[1], db = args[2];
        for (int i = 3; i < args.length; i++) {
            out.append("=== server ").append(i - 3).append('\n');
            Properties props = new Properties();
            props.setProperty("user", user);
            props.setProperty("password", password);
            props.setProperty("useServerPrepStmts", "true");
            // The URL scheme BI tools' MySQL connections use, with MariaDB
            // Connector/J (it accepts jdbc:mysql: in 2.x; 3.x needs
            // permitMysqlScheme).
            run("jdbc:mysql://" + args[i] + "/" + db, props, db);
            // And its own scheme, with a plain query.
            try (Connection c = DriverManager.getConnection("jdbc:mariadb://" + args[i] + "/" + db, props)) {
                query(c, "mariadb scheme", "select Carrier, count(*) from ontime group by Carrier order by Carrier");
            }
        }
        // UTF-8 whatever the locale (JDK 17 takes the locale's charset).
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        stdout.print(out);
        stdout.flush();
    }
}
